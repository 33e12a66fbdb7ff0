/**
 * Queued work shared between teams: one team's crawls filling the worker's job slots leave room
 * for another team's first jobs, which start at once instead of waiting for the first team's to
 * end. The slow site holds every page of acme's crawls until the test lets them go, so what is
 * asserted is order (beta's work ended while acme's still ran), not time.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { waitFor as waitForAnswer } from '../helpers/wait.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

describe('job slots shared between teams', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  const held: ServerResponse[] = [];
  let keys: { acme: string; beta: string };

  before(async () => {
    site = await startServer(
      {
        '/robots.txt': (_q, r) => void r.writeHead(404).end(),
        '/sitemap.xml': (_q, r) => void r.writeHead(404).end(),
        '/quick/': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>quick</title><p>quick start</p><a href="/quick/two">two</a>'),
        '/quick/two': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>two</title><p>the second page</p>'),
      },
      (_q, response) => void held.push(response),
    );
    // Four job slots: with two teams holding keys, one team may take three.
    served = await serveWebwatch({ jobConcurrency: 4 });
    keys = { acme: (await served.keys.create('acme', new Date())).key, beta: (await served.keys.create('beta', new Date())).key };
  });
  after(async () => {
    for (const response of held) response.destroy();
    await served.stop();
    await site.close();
  });

  // Work that waits behind another team's never answers here: 20 s is plenty for what should start at once.
  const waitFor = <T>(probe: () => Promise<T | undefined>) => waitForAnswer(probe, 20_000);

  it("starts another team's crawl and monitor run while one team's crawls hold what it may", async () => {
    const acme: string[] = [];
    for (let i = 0; i < 6; i++)
      acme.push((await call(served, keys.acme, 'POST', '/crawl', { url: `${site.origin}/slow-${i}/`, limit: 40, scrapeOptions: { maxAge: 0 } })).body.id);
    // Acme's crawls are claimed and their first pages held by the site.
    await waitFor(async () => (held.length >= 3 ? true : undefined));

    const crawl = await call(served, keys.beta, 'POST', '/crawl', { url: `${site.origin}/quick/`, limit: 2, scrapeOptions: { maxAge: 0 } });
    const monitor = (
      await call(served, keys.beta, 'POST', '/monitor', {
        name: 'Quick',
        schedule: { cron: '0 * * * *' },
        targets: [{ type: 'scrape', urls: [`${site.origin}/quick/two`] }],
      })
    ).body.data;
    const run = (await call(served, keys.beta, 'POST', `/monitor/${monitor.id}/run`, {})).body.data;
    const crawled = await waitFor(async () => {
      const status = (await call(served, keys.beta, 'GET', `/crawl/${crawl.body.id}`)).body;
      return status.status === 'completed' ? status : undefined;
    });
    assert.equal(crawled.completed, 2);
    const checked = await waitFor(async () => {
      const check = (await call(served, keys.beta, 'GET', `/monitor/${monitor.id}/checks/${run.id}`)).body.data;
      return check.status === 'completed' ? check : undefined;
    });
    assert.equal(checked.summary.new, 1);

    // Meanwhile acme's crawls still ran, three of them, and none of acme's queued ones took beta's slot.
    const statuses = await Promise.all(acme.map(async (id) => (await call(served, keys.acme, 'GET', `/crawl/${id}`)).body.status));
    assert.deepEqual(
      statuses,
      acme.map(() => 'scraping'),
    );
    assert.equal(held.length, 3, 'acme holds three of the four slots');
    const queue = (await call(served, keys.acme, 'GET', '/team/queue-status')).body;
    assert.deepEqual([queue.activeJobsInQueue, queue.waitingJobsInQueue], [3, 3]);
    for (const id of acme) await call(served, keys.acme, 'DELETE', `/crawl/${id}`);
  });
});
