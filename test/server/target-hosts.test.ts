/** The private-address rule over a whole definition: each host once, in parallel, each lookup bounded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refusePrivateHosts } from '../../src/engine/fetch/target-hosts.js';
import { pathBeyondDepth } from '../../src/spec/depth.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('refusePrivateHosts', () => {
  it('looks each host up once, sixteen at a time', async () => {
    const looked: string[] = [];
    const urls = Array.from({ length: 2000 }, (_, i) => new URL(`https://h${i % 64}.example.com/page/${i}`));
    const t0 = performance.now();
    await refusePrivateHosts(urls, async (url) => {
      looked.push(url.hostname);
      await sleep(100);
    });
    const elapsed = performance.now() - t0;
    assert.equal(looked.length, 64);
    assert.equal(new Set(looked).size, 64);
    // 64 lookups of 100 ms, 16 at once: four rounds, not 64.
    assert.ok(elapsed >= 390 && elapsed < 2000, `took ${elapsed} ms`);
  });

  it('refuses with the first refused host, and a lookup that never answers does not hold it up', async () => {
    const urls = ['https://slow.example.com/', 'https://ok.example.com/', 'https://inside.example.com/'].map((u) => new URL(u));
    const t0 = performance.now();
    await assert.rejects(
      refusePrivateHosts(urls, async (url) => {
        if (url.hostname === 'slow.example.com') await new Promise(() => undefined);
        if (url.hostname === 'inside.example.com') throw new Error('refused: inside');
      }),
      /refused: inside/,
    );
    assert.ok(performance.now() - t0 < 4000);
  });
});

describe('pathBeyondDepth', () => {
  it('names the first value nested too deep, without recursion', () => {
    assert.equal(pathBeyondDepth({ a: [1, { b: 2 }] }, 3), undefined);
    assert.deepEqual(pathBeyondDepth({ a: [1, { b: {} }] }, 3), ['a', 1, 'b']);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    assert.equal(pathBeyondDepth(deep, 64)!.length, 64);
  });
});
