/**
 * Work that serve's API queues (crawls, batch scrapes, agent jobs, manual checks), run by
 * whichever worker process has room, on one real PostgreSQL: an API-only process runs none of it
 * itself; work waits for a worker and is taken when one starts; a cancel made through the API
 * stops a crawl a worker runs; a worker killed with SIGKILL leaves its job failed, never stuck
 * and never run twice; the team's page slots hold across every process.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { openDatabase, type Db } from '../../src/engine/store/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { POSTGRES_SKIP, postgresServer, stopPostgresServer } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.js';
import { call } from '../helpers/webwatch-server.js';
import { sqlRows } from '../helpers/sql.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('queued work shared by serve processes on one PostgreSQL', { skip: POSTGRES_SKIP, timeout: 240_000 }, () => {
  let url: string;
  let db: Db;
  let site: TestServer;
  let model: FakeLlm;
  let config: string;
  let key: string;
  /** Requests the site received, by path. */
  const hits = new Map<string, number>();
  /** Slow pages being served now, and the most at once since the last reset. */
  const slow = { now: 0, peak: 0 };
  const processes: ServeProcess[] = [];
  const started = async (args: string[]) => {
    const serve = await serveProcess(args, { WEBWATCH_DATABASE_URL: url, WEBWATCH_LEASE_SECONDS: '2', XDG_CONFIG_HOME: config });
    processes.push(serve);
    return serve;
  };
  const leaseOwner = async (table: string, id: string) =>
    (await sqlRows<{ lease_owner: string | null }>(db, `SELECT lease_owner FROM ${table} WHERE id = $1`, id))[0]?.lease_owner;
  const heldBy = (owner: string | null | undefined, serve: ServeProcess) => owner?.split(':')[1] === String(serve.child.pid);

  before(async () => {
    url = await (await postgresServer()).createDatabase();
    db = await openDatabase(url);
    key = (await keyStore(db).create('acme', new Date())).key;
    // /slow/N pages answer after a second; the others at once, each linking to two more.
    site = await startServer({}, (request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const page = `<html><head><title>${path}</title></head><body><main><h1>${path}</h1><p>The page at ${path}.</p><a href="${path.replace(/\/$/, '')}/a">a</a> <a href="${path.replace(/\/$/, '')}/b">b</a></main></body></html>`;
      if (path.startsWith('/slow')) slow.peak = Math.max(slow.peak, ++slow.now);
      setTimeout(
        () => {
          if (path.startsWith('/slow')) slow.now--;
          response.writeHead(200, { 'content-type': 'text/html' }).end(page);
        },
        path.startsWith('/slow') ? 1000 : 0,
      );
    });
    model = await startFakeLlm((request) =>
      request.messages.some((message) => message.role === 'tool')
        ? { toolCalls: [{ name: 'finish', arguments: { result: { title: '/pricing' } } }] }
        : { toolCalls: [{ name: 'scrape', arguments: { url: `${site.origin}/pricing` } }] },
    );
    config = await mkdtemp(join(tmpdir(), 'webwatch-queue-config-'));
    await mkdir(join(config, 'webwatch'));
    await writeFile(join(config, 'webwatch', 'config.yaml'), `llm:\n  baseUrl: ${model.url}\n  model: scripted\n`);
  });
  after(async () => {
    for (const serve of processes) await serve.kill().catch(() => undefined);
    await db?.close();
    await site?.close();
    await model?.close();
    await rm(config, { recursive: true, force: true });
    await stopPostgresServer();
  });

  it('work queued through an API-only process waits for a worker, then a worker runs every kind of it', async () => {
    const api = await started(['--role', 'api']);
    const crawl = await call(api, key, 'POST', '/crawl', { url: `${site.origin}/docs/`, limit: 5 });
    assert.equal(crawl.status, 200, JSON.stringify(crawl.body));
    const batch = await call(api, key, 'POST', '/batch/scrape', { urls: [`${site.origin}/one`, `${site.origin}/two`] });
    assert.equal(batch.status, 200);
    const agent = await call(api, key, 'POST', '/agent', { prompt: 'the title of the pricing page', urls: [`${site.origin}/pricing`] });
    assert.equal(agent.status, 200, JSON.stringify(agent.body));
    const monitor = await call(api, key, 'POST', '/monitor', {
      name: 'Queued',
      schedule: { cron: '0 0 1 1 *' },
      targets: [{ type: 'scrape', urls: [`${site.origin}/watched`] }],
    });
    assert.equal(monitor.status, 200, JSON.stringify(monitor.body));
    const run = await call(api, key, 'POST', `/monitor/${monitor.body.data.id}/run`);
    assert.equal(run.status, 200);
    assert.equal(run.body.data.status, 'queued');

    // No worker yet: the API process runs none of it, and says it waits.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(hits.size, 0, 'nothing fetched before a worker started');
    const queue = await call(api, key, 'GET', '/team/queue-status');
    assert.deepEqual([queue.body.waitingJobsInQueue, queue.body.activeJobsInQueue], [4, 0]);
    assert.equal((await call(api, key, 'GET', `/crawl/${crawl.body.id}`)).body.status, 'scraping', 'a queued crawl reads as scraping');

    const worker = await started(['--role', 'worker']);
    const crawled = await until('the crawl completed', async () => {
      const status = await call(api, key, 'GET', `/crawl/${crawl.body.id}`);
      return status.body.status === 'completed' && status.body;
    });
    assert.equal(crawled.total, 5);
    assert.ok(crawled.data.every((document: Body) => document.metadata.sourceURL.startsWith(`${site.origin}/docs`)));
    const scraped = await until('the batch completed', async () => {
      const status = await call(api, key, 'GET', `/batch/scrape/${batch.body.id}`);
      return status.body.status === 'completed' && status.body;
    });
    assert.deepEqual(scraped.data.map((document: Body) => document.metadata.title).sort(), ['/one', '/two']);
    const answered = await until('the agent job completed', async () => {
      const status = await call(api, key, 'GET', `/agent/${agent.body.id}`);
      return status.body.status !== 'processing' && status.body;
    });
    assert.deepEqual([answered.status, answered.data], ['completed', { title: '/pricing' }]);
    const trace = await call(api, key, 'GET', `/agent/${agent.body.id}/trace`);
    assert.equal(trace.body.events.at(-1).type, 'run.finished');
    const check = await until('the manual check completed', async () => {
      const checks = await call(api, key, 'GET', `/monitor/${monitor.body.data.id}/checks`);
      return checks.body.data.find((found: Body) => found.id === run.body.data.id && found.status === 'completed');
    });
    assert.equal(check.trigger, 'manual');
    assert.equal(hits.get('/watched'), 1);
    // Each page of each job was fetched once: claimed by one worker, run once.
    assert.deepEqual(
      [...hits].filter(([, n]) => n !== 1),
      [],
    );
    // Usage is counted under the key whose request queued the work.
    const usage = await sqlRows<{ kind: string; key_id: string | null }>(
      db,
      "SELECT kind, key_id FROM usage WHERE kind IN ('crawl', 'scrape', 'agent', 'check')",
    );
    assert.deepEqual(new Set(usage.map((row) => row.kind)), new Set(['crawl', 'scrape', 'agent', 'check']));
    assert.ok(
      usage.every((row) => row.key_id !== null),
      JSON.stringify(usage),
    );
    for (const serve of [api, worker]) assert.equal(await serve.stop(), 0, serve.stderr());
  });

  it('a cancel through the API stops a crawl another process runs, at once', async () => {
    const [api, worker] = await Promise.all([started(['--role', 'api']), started(['--role', 'worker'])]);
    const crawl = await call(api, key, 'POST', '/crawl', { url: `${site.origin}/slow/cancel/`, limit: 50, maxConcurrency: 1 });
    await until('the worker took the crawl', async () => heldBy(await leaseOwner('crawl_jobs', crawl.body.id), worker));
    const cancelled = await call(api, key, 'DELETE', `/crawl/${crawl.body.id}`);
    assert.deepEqual([cancelled.status, cancelled.body.status], [200, 'cancelled']);
    const seen = () => [...hits.keys()].filter((path) => path.startsWith('/slow/cancel')).length;
    // The page being fetched may end; no new one starts once the worker has seen the cancel.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const afterCancel = seen();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(seen(), afterCancel, 'no page fetched after the cancel was seen');
    assert.ok(afterCancel < 5, `${afterCancel} pages`);
    const [row] = await sqlRows<{ status: string; lease_owner: string | null }>(db, 'SELECT status, lease_owner FROM crawl_jobs WHERE id = $1', crawl.body.id);
    assert.deepEqual(row, { status: 'cancelled', lease_owner: null });
    for (const serve of [api, worker]) assert.equal(await serve.stop(), 0, serve.stderr());
  });

  it('SIGKILL of the worker running a batch: it ends failed as interrupted, and no other worker runs it again', async () => {
    const api = await started(['--role', 'api']);
    const victim = await started(['--role', 'worker']);
    const urls = Array.from({ length: 12 }, (_, i) => `${site.origin}/slow/killed/${i}`);
    const batch = await call(api, key, 'POST', '/batch/scrape', { urls, maxConcurrency: 1 });
    await until('the victim took the batch', async () => heldBy(await leaseOwner('crawl_jobs', batch.body.id), victim));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await victim.kill();
    const survivor = await started(['--role', 'worker']);
    const failed = await until(
      'the batch failed',
      async () => {
        const status = await call(api, key, 'GET', `/batch/scrape/${batch.body.id}`);
        return status.body.status !== 'scraping' && status.body;
      },
      20_000,
    );
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /^interrupted: the process running the batch scrape ended before it finished/);
    const fetched = urls.filter((page) => hits.has(new URL(page).pathname)).length;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(urls.filter((page) => hits.has(new URL(page).pathname)).length, fetched, 'the survivor did not run it again');
    assert.ok(fetched < urls.length);
    assert.deepEqual(
      urls.map((page) => hits.get(new URL(page).pathname) ?? 0).filter((n) => n > 1),
      [],
      'no page fetched twice',
    );
    for (const serve of [api, survivor]) assert.equal(await serve.stop(), 0, serve.stderr());
  });

  it('SIGKILL of the worker running a crawl: the ledger has booked the pages it stored, and no more', async () => {
    const api = await started(['--role', 'api']);
    const victim = await started(['--role', 'worker']);
    const bookedCrawls = async () =>
      Number(
        (await sqlRows<{ credits: string | null }>(db, "SELECT sum(credits) AS credits FROM usage WHERE team = 'acme' AND kind = 'crawl'"))[0]?.credits ?? 0,
      );
    const before = await bookedCrawls();
    const crawl = await call(api, key, 'POST', '/crawl', { url: `${site.origin}/slow/booked/`, limit: 50, maxConcurrency: 1 });
    await until('the victim took the crawl', async () => heldBy(await leaseOwner('crawl_jobs', crawl.body.id), victim));
    const stored = async () =>
      Number((await sqlRows<{ n: string }>(db, 'SELECT count(*) AS n FROM crawl_pages WHERE job_id = $1 AND document IS NOT NULL', crawl.body.id))[0]!.n);
    await until('three pages stored', async () => (await stored()) >= 3, 30_000);
    await victim.kill();
    const pages = await stored();
    // A page stored in the instant before the kill may not be booked yet: one at most.
    const credits = (await bookedCrawls()) - before;
    assert.ok(credits <= pages && credits >= pages - 1, `${credits} credits booked for ${pages} pages stored`);
    assert.equal(await api.stop(), 0, api.stderr());
    // The page the killed worker was fetching is still being answered: the next test counts pages at once.
    await until('the slow page the worker was fetching has been answered', async () => slow.now === 0, 5_000);
  });

  it("the team's page slots hold across processes: two jobs on two workers run no more pages at once than the limit", async () => {
    const api = await started(['--role', 'api', '--concurrency', '2']);
    // One job each, so that the two jobs run in two processes.
    const workers = await Promise.all([0, 1].map(() => started(['--role', 'worker', '--concurrency', '2', '--job-concurrency', '1'])));
    slow.peak = 0;
    const jobs: string[] = [];
    for (const name of ['slots-a', 'slots-b']) {
      const job = await call(api, key, 'POST', '/batch/scrape', { urls: [0, 1, 2].map((i) => `${site.origin}/slow/${name}-${i}`), maxAge: 0 });
      assert.equal(job.status, 200, 'queued, never refused for concurrency');
      jobs.push(job.body.id as string);
    }
    const holders = await until('both jobs claimed', async () => {
      const owners = await Promise.all(jobs.map((id) => leaseOwner('crawl_jobs', id)));
      return owners.every((owner) => owner && owner !== 'queued') && owners;
    });
    assert.ok(
      workers.every((worker) => holders.some((owner) => heldBy(owner, worker))),
      'each worker runs one job',
    );
    await until('the API process counts the pages the workers run', async () => (await call(api, key, 'GET', '/concurrency-check')).body.concurrency === 2);
    const refused = await call(api, key, 'POST', '/scrape', { url: `${site.origin}/direct` });
    assert.equal(refused.status, 429, "a direct scrape finds no slot while the team's pages hold them in other processes");
    await until('both batches ended', async () => {
      const statuses = await Promise.all(jobs.map((id) => call(api, key, 'GET', `/batch/scrape/${id}`)));
      return statuses.every((status) => status.body.status === 'completed' && status.body.completed === 3);
    });
    assert.equal(slow.peak, 2, 'two pages at once, across both workers');
    assert.equal((await call(api, key, 'GET', '/concurrency-check')).body.concurrency, 0, 'every slot given back');
    for (const serve of [api, ...workers]) assert.equal(await serve.stop(), 0, serve.stderr());
  });
});
