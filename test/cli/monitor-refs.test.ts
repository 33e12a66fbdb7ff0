/** Monitors named on the command line: ids, id prefixes, names in any case, and errors that help. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newestCheck, resolveCheckRef, resolveMonitorRef } from '../../src/services/monitor-ref.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { call, serveWebwatch } from '../helpers/webwatch-server.js';

const monitors = [
  { id: 'ab12cd34-0000-4000-8000-000000000001', name: 'Acme pricing', status: 'active' },
  { id: 'ab12ef56-0000-4000-8000-000000000002', name: 'Acme blog', status: 'paused' },
  { id: 'ffff0000-0000-4000-8000-000000000003', name: 'Old', status: 'deleted' },
];

describe('resolving a monitor reference', () => {
  it('takes an id, a unique prefix, an exact name, or a name in another case', () => {
    assert.equal(resolveMonitorRef('ab12cd34-0000-4000-8000-000000000001', monitors).name, 'Acme pricing');
    assert.equal(resolveMonitorRef('ab12c', monitors).name, 'Acme pricing');
    assert.equal(resolveMonitorRef('AB12E', monitors).name, 'Acme blog');
    assert.equal(resolveMonitorRef('acme BLOG', monitors).name, 'Acme blog');
    assert.equal(resolveMonitorRef('Acme blog', monitors).name, 'Acme blog');
  });

  it('lists the candidates of an ambiguous prefix', () => {
    assert.throws(
      () => resolveMonitorRef('ab12', monitors),
      (error: Error & { details: { candidates: unknown[] } }) => {
        assert.match(error.message, /"ab12" matches 2 monitors: ab12cd34 \(Acme pricing\), ab12ef56 \(Acme blog\)/);
        assert.equal(error.details.candidates.length, 2);
        return true;
      },
    );
  });

  it('suggests the closest name, and does not take prefixes too short or names of deleted monitors', () => {
    assert.throws(
      () => resolveMonitorRef('Acme pricng', monitors),
      (error: Error & { suggestion: string; status: number }) => {
        assert.equal(error.status, 404);
        assert.equal(error.suggestion, 'did you mean "Acme pricing"?');
        return true;
      },
    );
    assert.throws(() => resolveMonitorRef('ab1', monitors), /Not Found/);
    assert.throws(() => resolveMonitorRef('Old', monitors), /Not Found/);
  });
});

const FILE = { 'm.yaml': `name: Acme pricing\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\n` };

describe('the newest check', () => {
  const checks = [
    { id: 'c1', startedAt: '2026-11-20T08:00:00.000Z', createdAt: '2026-11-20T07:59:00.000Z' },
    { id: 'c3', startedAt: null, createdAt: '2026-11-22T09:00:00.000Z' },
    { id: 'c2', startedAt: '2026-11-21T08:00:00.000Z', createdAt: '2026-11-21T07:59:00.000Z' },
  ];

  it('is the one started last, or created last when it has not started yet, wherever it is listed', () => {
    assert.equal(newestCheck(checks)?.id, 'c3');
    assert.equal(newestCheck(checks.slice(0, 1).concat(checks.slice(2)))?.id, 'c2');
    assert.equal(resolveCheckRef('latest', [...checks].reverse(), 'Acme pricing').id, 'c3');
    assert.equal(newestCheck([]), undefined);
  });

  it('of a monitor without checks is a Not Found that says how to run one', () => {
    assert.throws(() => resolveCheckRef('latest', [], 'Acme pricing'), /Not Found|not found/i);
  });
});

describe('monitor commands by prefix and name', () => {
  it('get, pause and run find a monitor by prefix or name in any case; errors say what and why', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const ww = (args: string[]) => run(args, { env, now: new Date('2026-11-21T12:00:00Z') });
    await ww(['monitor', 'apply', '-f', writeFiles(FILE)]);
    const { id } = JSON.parse((await ww(['monitor', 'get', 'acme PRICING', '--json'])).stdout);
    assert.equal(JSON.parse((await ww(['monitor', 'get', id.slice(0, 6), '--json'])).stdout).name, 'Acme pricing');

    const unknown = await ww(['monitor', 'get', 'Acme pricng']);
    assert.equal(unknown.code, 4);
    assert.equal(unknown.stderr, 'error: monitor "Acme pricng": no monitor has this id, id prefix or name\nhint: did you mean "Acme pricing"?\n');
    const unknownJson = await ww(['--json', 'monitor', 'get', 'Acme pricng']);
    assert.equal(unknownJson.code, 4);
    assert.deepEqual(JSON.parse(unknownJson.stdout), {
      success: false,
      error: 'Not Found',
      code: 'NOT_FOUND',
      details: { monitor: 'Acme pricng', reason: 'no monitor has this id, id prefix or name' },
      hint: 'did you mean "Acme pricing"?',
    });

    assert.equal((await ww(['monitor', 'pause', 'acme pricing'])).code, 0);
    const paused = await ww(['monitor', 'run', 'Acme pricing']);
    assert.equal(paused.code, 5);
    assert.match(paused.stderr, /^error: monitor "Acme pricing" is paused\nhint: resume it with: webwatch monitor resume "Acme pricing"\n$/);
  });

  it('serve takes ids and exact names only; the command line resolves prefixes against it', async () => {
    const served = await serveWebwatch();
    try {
      const key = (await served.keys.create('acme', new Date())).key;
      const env = { WEBWATCH_HOME: tempDir(), WEBWATCH_API_URL: served.url.replace(/\/v2$/, ''), WEBWATCH_API_KEY: key };
      const ww = (args: string[]) => run(args, { env });
      assert.equal((await ww(['monitor', 'apply', '-f', writeFiles(FILE)])).code, 0);
      const { id } = JSON.parse((await ww(['monitor', 'get', 'ACME pricing', '--json'])).stdout);
      assert.equal(JSON.parse((await ww(['monitor', 'get', id.slice(0, 8), '--json'])).stdout).id, id);
      const whole = await call(served, key, 'GET', `/monitor/${id}`);
      assert.equal(whole.status, 200, 'the monitor is on serve');
      const direct = await call(served, key, 'GET', `/monitor/${id.slice(0, 8)}`);
      assert.equal(direct.status, 404, 'no prefixes over HTTP');
      const missing = await ww(['monitor', 'get', 'Acme pricng']);
      assert.match(missing.stderr, /hint: did you mean "Acme pricing"\?/);
    } finally {
      await served.stop();
    }
  });
});
