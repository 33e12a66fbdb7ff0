/**
 * Two teams on one `webwatch serve`: every way one team could see or touch the other's data —
 * monitors, checks, page results and their diffs (snapshots), the scrape cache (plain,
 * lockdown, minAge), change tracking, crawl jobs, keys — answers as if the other team's data
 * did not exist.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch as serve, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const SECRET = 'Balance of Alice: $1,000,000';

describe('two teams on one server see nothing of each other', () => {
  let site: TestServer;
  let started: ServingWebwatch;
  let acme: string;
  let rival: string;
  let version = 1;

  before(async () => {
    site = await startServer({
      // What the page shows depends on the session cookie: the signed-in page is private.
      '/account': (request, response) => {
        const signedIn = request.headers.cookie === 'session=alice';
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<main><h1>Account</h1><p>${signedIn ? `${SECRET} (v${version})` : 'Please sign in'}</p></main>`);
      },
      '/report': (_q, r) =>
        void r.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Report</h1><p>Quarterly numbers, edition ${version}</p></main>`),
    });
    started = await serve();
    acme = (await started.keys.create('acme', new Date())).key;
    rival = (await started.keys.create('rival', new Date())).key;
  });
  after(async () => {
    await started.stop();
    await site.close();
  });

  const scrape = (key: string, options: Record<string, unknown>) => call(started, key, 'POST', '/scrape', options);
  const fetchesOf = (path: string) => site.requests.filter((r) => r.path === path).length;

  it('change tracking: histories belong to one team, and a page seen with a cookie to requests with that cookie', async () => {
    const tracked = { url: `${site.origin}/account`, formats: ['markdown', 'changeTracking'] };
    const signedIn = { ...tracked, headers: { Cookie: 'session=alice' } };

    const first = await scrape(acme, signedIn);
    assert.equal(first.status, 200);
    assert.equal(first.body.data.changeTracking.changeStatus, 'new');
    assert.match(first.body.data.markdown, /Balance of Alice/);

    // The rival team's first look is its own first look: new, with nothing of acme's page.
    const theirs = await scrape(rival, tracked);
    assert.equal(theirs.body.data.changeTracking.changeStatus, 'new');
    assert.equal(theirs.body.data.changeTracking.previousScrapeAt, null);
    assert.doesNotMatch(JSON.stringify(theirs.body), /Alice/);

    // Within acme, a request without the cookie has its own history too.
    const withoutCookie = await scrape(acme, tracked);
    assert.equal(withoutCookie.body.data.changeTracking.changeStatus, 'new');
    assert.doesNotMatch(JSON.stringify(withoutCookie.body), /Alice/);

    version = 2;
    const again = await scrape(acme, signedIn);
    assert.equal(again.body.data.changeTracking.changeStatus, 'changed');
    assert.match(again.body.data.changeTracking.diff.text, /-Balance of Alice: \$1,000,000 \(v1\)/);
    assert.equal((await scrape(rival, tracked)).body.data.changeTracking.changeStatus, 'same');
    version = 1;
  });

  it('the scrape cache: a team reads only what its own requests stored (plain, lockdown, minAge)', async () => {
    const url = `${site.origin}/report?token=acme-only-7f3a`;
    const stored = await scrape(acme, { url });
    assert.equal(stored.body.data.metadata.cacheState, 'miss');
    assert.equal((await scrape(acme, { url, lockdown: true })).body.data.metadata.cacheState, 'hit', 'acme reads its own cache');

    const lockdown = await scrape(rival, { url, lockdown: true });
    assert.equal(lockdown.status, 404);
    assert.equal(lockdown.body.error, 'SCRAPE_LOCKDOWN_CACHE_MISS');
    const minAge = await scrape(rival, { url, minAge: 1 });
    assert.equal(minAge.status, 404);
    assert.equal(minAge.body.error, 'SCRAPE_NO_CACHED_DATA');
    const before = fetchesOf('/report');
    const plain = await scrape(rival, { url });
    assert.equal(plain.body.data.metadata.cacheState, 'miss', 'the rival fetches the page itself');
    assert.equal(fetchesOf('/report'), before + 1);

    // Requests with headers are never stored (spec §2.7), so no one reads them back.
    await scrape(acme, { url: `${site.origin}/account`, headers: { Cookie: 'session=alice' } });
    const cookieLockdown = await scrape(acme, { url: `${site.origin}/account`, headers: { Cookie: 'session=alice' }, lockdown: true });
    assert.equal(cookieLockdown.status, 404);
  });

  it("monitors, checks, page results and diffs: another team's ids are unknown everywhere", async () => {
    const created = await call(started, acme, 'POST', '/monitor', {
      name: 'Accounts',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: [`${site.origin}/account`], scrapeOptions: { headers: { Cookie: 'session=alice' } } }],
      webhook: { url: `${site.origin}/hook`, headers: { Authorization: 'Bearer hook-secret' } },
    });
    assert.equal(created.status, 200);
    const id = created.body.data.id;
    const ran = await call(started, acme, 'POST', `/monitor/${id}/run`);
    assert.equal(ran.status, 200);
    const checkId = ran.body.data.id;
    for (let i = 0; i < 50 && ['queued', 'running'].includes((await call(started, acme, 'GET', `/monitor/${id}/checks/${checkId}`)).body.data.status); i++)
      await new Promise((r) => setTimeout(r, 50));
    const own = await call(started, acme, 'GET', `/monitor/${id}/checks/${checkId}`);
    assert.equal(own.body.data.pages.length, 1);

    // The rival team's own monitor, to pair with acme's ids.
    const theirs = (
      await call(started, rival, 'POST', '/monitor', {
        name: 'Accounts',
        schedule: { cron: '0 * * * *' },
        targets: [{ type: 'scrape', urls: [`${site.origin}/report`] }],
      })
    ).body.data.id;
    const probes: [string, string, unknown?][] = [
      ['GET', `/monitor/${id}`],
      ['PATCH', `/monitor/${id}`, { status: 'paused' }],
      ['PATCH', `/monitor/${id}`, { goal: 'take it over' }],
      ['POST', `/monitor/${id}/run`],
      ['GET', `/monitor/${id}/checks`],
      ['GET', `/monitor/${id}/checks/${checkId}`],
      ['GET', `/monitor/${theirs}/checks/${checkId}`],
      ['DELETE', `/monitor/${id}`],
    ];
    for (const [method, path, payload] of probes) {
      const answer = await call(started, rival, method, path, payload);
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.doesNotMatch(JSON.stringify(answer.body), /Alice|hook-secret|session=alice/, `${method} ${path}`);
    }
    const list = await call(started, rival, 'GET', '/monitor?includeDeleted=true');
    assert.deepEqual(
      list.body.data.map((m: { id: string }) => m.id),
      [theirs],
    );

    // Nothing the rival did changed acme's monitor.
    const after = await call(started, acme, 'GET', `/monitor/${id}`);
    assert.equal(after.body.data.status, 'active');
    assert.equal(after.body.data.goal, null);
    assert.equal((await call(started, acme, 'GET', `/monitor/${id}/checks`)).body.data.length, 1);
  });

  it('crawl jobs: status and errors of another team’s crawl are unknown', async () => {
    const started_ = await call(started, acme, 'POST', '/crawl', { url: `${site.origin}/report`, limit: 1, sitemap: 'skip', ignoreRobotsTxt: true });
    assert.equal(started_.status, 200);
    const id = started_.body.id;
    let status: Body;
    for (let i = 0; i < 100; i++) {
      status = (await call(started, acme, 'GET', `/crawl/${id}`)).body;
      if (status.status !== 'scraping') break;
      await new Promise((r) => setTimeout(r, 30));
    }
    assert.equal(status.status, 'completed');
    assert.equal(status.data.length, 1);
    for (const path of [`/crawl/${id}`, `/crawl/${id}/errors`]) {
      const answer = await call(started, rival, 'GET', path);
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(JSON.stringify(answer.body), /Quarterly/);
    }
  });

  it('keys: no route lists or reveals keys, and a key works only for its team', async () => {
    for (const path of ['/keys', '/team/keys']) assert.equal((await call(started, acme, 'GET', path)).status, 404);
    const revoked = await started.keys.create('rival', new Date());
    await started.keys.revoke(revoked.id, new Date());
    assert.equal((await call(started, revoked.key, 'GET', '/monitor')).status, 401);
  });
});
