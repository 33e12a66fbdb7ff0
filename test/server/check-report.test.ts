/**
 * A check's report on `webwatch serve`: GET /v2/monitor/{id}/checks/{checkId}/report answers the
 * same self-contained page the command line writes, with its policy as a header too, to a key
 * of the monitor's team only; `monitor report` against serve writes it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../src/errors/exit-codes.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

describe('check reports on serve', () => {
  let site: TestServer;
  let started: ServingWebwatch;
  let acme: string;
  let rival: string;
  let price = '$10';
  before(async () => {
    site = await startServer({
      '/pricing': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Pricing</h1><p>Pro plan: ${price} a month</p></main>`),
    });
    started = await serveWebwatch();
    acme = (await started.keys.create('acme', new Date())).key;
    rival = (await started.keys.create('rival', new Date())).key;
  });
  after(async () => {
    await started.stop();
    await site.close();
  });

  const as = (key: string) => ({ env: { WEBWATCH_API_URL: started.url, WEBWATCH_API_KEY: key }, now: () => new Date() });

  it("answers the team's key with the report, anyone else with nothing of it", async () => {
    const file = writeFiles({ 'm.yaml': `name: Pricing\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/pricing"]}]\n` });
    assert.equal((await run(['monitor', 'apply', '-f', file], as(acme))).code, EXIT.ok);
    await run(['monitor', 'run', 'Pricing', '--wait'], as(acme));
    price = '$12';
    const check = JSON.parse((await run(['monitor', 'run', 'Pricing', '--wait', '--json'], as(acme))).stdout);
    assert.equal(check.summary.changed, 1);

    const path = `/monitor/${check.monitorId}/checks/${check.id}/report`;
    const answer = await call(started, acme, 'GET', path);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    assert.match(
      answer.headers.get('content-security-policy') ?? '',
      /^default-src 'none'; img-src data:; style-src 'sha256-[^']+'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.match(answer.text, /Pro plan: \$<del>10<\/del> a month/);
    assert.match(answer.text, /Pro plan: \$<ins>12<\/ins> a month/);

    // Another team's key, or none: the check does not exist for them.
    const theirs = await call(started, rival, 'GET', path);
    assert.equal(theirs.status, 404);
    assert.doesNotMatch(theirs.text, /Pro plan/);
    assert.equal((await call(started, undefined, 'GET', path)).status, 401);

    // The command line against serve writes what the route answers.
    const out = join(tempDir(), 'r.html');
    const written = await run(['monitor', 'report', 'Pricing', '-o', out, '--json'], as(acme));
    assert.equal(written.code, EXIT.ok, written.stderr);
    assert.equal(JSON.parse(written.stdout).checkId, check.id);
    const cut = (html: string) => html.replace(/<footer>.*<\/footer>/, '');
    assert.equal(cut(readFileSync(out, 'utf8')), cut(answer.text));
    assert.equal((await run(['monitor', 'report', 'Pricing'], as(rival))).code, EXIT.notFound);
  });

  it('against an API without the route (the hosted one), says so with a code', async () => {
    const monitorId = '11111111-1111-4111-8111-111111111111';
    const checkId = '22222222-2222-4222-8222-222222222222';
    const check = {
      id: checkId,
      monitorId,
      status: 'completed',
      trigger: 'manual',
      startedAt: '2026-11-01T00:00:00Z',
      finishedAt: '2026-11-01T00:01:00Z',
      createdAt: '2026-11-01T00:00:00Z',
      summary: { totalPages: 1, same: 0, changed: 1, new: 0, removed: 0, error: 0 },
    };
    const json =
      (body: unknown, status = 200) =>
      (_q: unknown, r: import('node:http').ServerResponse) =>
        void r.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const hosted = await startServer(
      {
        '/v2/monitor': json({ success: true, data: [{ id: monitorId, name: 'Pricing', status: 'active' }] }),
        [`/v2/monitor/${monitorId}/checks`]: json({ success: true, data: [check] }),
        [`/v2/monitor/${monitorId}/checks/${checkId}`]: json({ success: true, data: { ...check, pages: [] } }),
      },
      json({ success: false, error: 'Not Found' }, 404),
    );
    try {
      const result = await run(['monitor', 'report', 'Pricing', '--json'], { env: { WEBWATCH_API_URL: `${hosted.origin}/v2`, WEBWATCH_API_KEY: 'fc-test' } });
      assert.equal(result.code, EXIT.notFound);
      const error = JSON.parse(result.stdout);
      assert.equal(error.code, 'REPORT_NOT_OFFERED');
      assert.match(error.error, /does not make check reports/);
      assert.ok(
        hosted.requests.some((r) => r.path.endsWith('/report')),
        'the route was asked',
      );
    } finally {
      await hosted.close();
    }
  });
});
