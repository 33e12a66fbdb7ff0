/** The crawl's queue: the earliest page whose host has room, as one queue walked from the front would give. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CrawlFrontier, type FrontierItem } from '../../src/engine/crawl/frontier.js';

const item = (host: string, n: number): FrontierItem => ({ url: `http://${host}/${n}`, depth: 1, host });

/** What the crawl did before: walk one queue from the front, start what has room. */
function walkedQueue(items: FrontierItem[], hasRoom: (host: string) => boolean): FrontierItem | undefined {
  const index = items.findIndex((candidate) => hasRoom(candidate.host));
  return index < 0 ? undefined : items.splice(index, 1)[0];
}

it('gives pages in the order they were queued when every host has room', () => {
  const frontier = new CrawlFrontier();
  const items = [item('a', 1), item('b', 1), item('a', 2), item('c', 1), item('b', 2)];
  for (const each of items) frontier.push(each);
  assert.equal(frontier.size, 5);
  const taken = [];
  for (let next = frontier.take(); next; next = frontier.take()) taken.push(next);
  assert.deepEqual(taken, items);
  assert.equal(frontier.size, 0);
  assert.equal(frontier.take(), undefined);
});

it('skips the pages of a full host, keeping them for later in their order', () => {
  const frontier = new CrawlFrontier();
  for (const each of [item('a', 1), item('a', 2), item('b', 1), item('a', 3), item('b', 2)]) frontier.push(each);
  assert.equal(frontier.take((host) => host !== 'a')?.url, 'http://b/1');
  assert.equal(frontier.take((host) => host !== 'a')?.url, 'http://b/2');
  assert.equal(
    frontier.take((host) => host !== 'a'),
    undefined,
  );
  assert.equal(frontier.size, 3);
  assert.deepEqual([frontier.take()?.url, frontier.take()?.url, frontier.take()?.url], ['http://a/1', 'http://a/2', 'http://a/3']);
});

it('chooses as the single queue did, over a long random run with per-host limits (long enough that taken pages are dropped)', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const frontier = new CrawlFrontier();
  const reference: FrontierItem[] = [];
  const active = new Map<string, number>();
  const hasRoom = (host: string) => (active.get(host) ?? 0) < 2;
  const running: string[] = [];
  for (let step = 0; step < 12_000; step++) {
    if (random() < 0.55) {
      const each = item(`h${Math.floor(random() * 3)}`, step);
      frontier.push(each);
      reference.push(each);
    } else if (random() < 0.5 && running.length > 0) {
      const [host] = running.splice(Math.floor(random() * running.length), 1);
      active.set(host!, active.get(host!)! - 1);
    } else {
      const expected = walkedQueue(reference, hasRoom);
      const got = frontier.take(hasRoom);
      assert.deepEqual(got, expected, `step ${step}`);
      if (got) {
        active.set(got.host, (active.get(got.host) ?? 0) + 1);
        running.push(got.host);
      }
    }
    assert.equal(frontier.size, reference.length);
  }
});

it('keeps the order of a long queue of one host while taken pages are dropped', () => {
  const frontier = new CrawlFrontier();
  for (let n = 0; n < 3000; n++) frontier.push(item('a', n));
  for (let n = 0; n < 2000; n++) assert.equal(frontier.take()?.url, `http://a/${n}`);
  for (let n = 3000; n < 3500; n++) frontier.push(item('a', n));
  assert.equal(frontier.size, 1500);
  for (let n = 2000; n < 3500; n++) assert.equal(frontier.take()?.url, `http://a/${n}`);
  assert.equal(frontier.take(), undefined);
});
