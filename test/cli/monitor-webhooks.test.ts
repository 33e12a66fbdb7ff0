/** Webhooks of checks on the local engine: a receiver on loopback that fails first, signatures, the outbox. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { MAX_ATTEMPTS, retryAt } from '../../src/engine/notify/deliver.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { readBody, startServer, type TestServer } from '../helpers/server.js';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));

interface Delivery {
  body: string;
  headers: IncomingMessage['headers'];
}

describe('webhooks', () => {
  let site: TestServer;
  let receiver: TestServer;
  const received: Delivery[] = [];
  /** Answers for the next deliveries, in order; then 200. */
  let answers: ((response: ServerResponse) => void)[] = [];
  before(async () => {
    site = await startServer({}, (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>a page</p></main>'));
    receiver = await startServer({}, async (request, response) => {
      received.push({ body: await readBody(request), headers: request.headers });
      const answer = answers.shift();
      if (answer) answer(response);
      else response.writeHead(200).end('ok');
    });
  });
  after(async () => {
    await site.close();
    await receiver.close();
  });

  const monitorFile = (name: string, webhook: string) =>
    writeFiles({
      'm.yaml': `name: ${name}\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/a", "${site.origin}/b"]}]\nwebhook:\n${webhook}`,
    });

  it('delivers signed monitor.page and monitor.check.completed events, retrying 503s with a stable webhookId', async () => {
    received.length = 0;
    const busy = (response: ServerResponse) => void response.writeHead(503, { 'retry-after': '0' }).end();
    answers = [busy, busy];
    const env = { WEBWATCH_HOME: tempDir(), WEBWATCH_WEBHOOK_SECRET: 'hook-secret' };
    const file = monitorFile('Hooked', `  url: ${receiver.origin}/hook\n  headers: {X-Team: blue}\n  metadata: {ticket: 42}\n`);
    assert.equal((await run(['monitor', 'apply', '-f', file], { env })).code, EXIT.ok);
    const check = JSON.parse((await run(['monitor', 'run', 'Hooked', '--json'], { env })).stdout);
    assert.deepEqual(check.notificationStatus, { webhook: { pending: 0, delivered: 3, failed: 0 } });

    // Two 503s, then each of the three deliveries once more: five requests in all.
    assert.equal(received.length, 5);
    const payloads = received.map((delivery) => JSON.parse(delivery.body));
    // Three deliveries, each retried under its own webhookId with the very same body.
    const groups = new Map<string, string[]>();
    for (const delivery of received)
      groups.set(JSON.parse(delivery.body).webhookId, [...(groups.get(JSON.parse(delivery.body).webhookId) ?? []), delivery.body]);
    assert.equal(groups.size, 3);
    for (const bodies of groups.values()) assert.equal(new Set(bodies).size, 1, 'a retry sends the same body');
    assert.ok(
      [...groups.values()].some((bodies) => bodies.length > 1),
      'some delivery was retried',
    );
    const delivered = new Map(payloads.map((p) => [p.webhookId, p]));
    const types = [...delivered.values()].map((p) => p.type).sort();
    assert.deepEqual(types, ['monitor.check.completed', 'monitor.page', 'monitor.page']);
    for (const delivery of received) {
      const expected = `sha256=${createHmac('sha256', 'hook-secret').update(delivery.body).digest('hex')}`;
      assert.equal(delivery.headers['x-webwatch-signature'], expected);
      assert.equal(delivery.headers['x-team'], 'blue');
    }
    const page = [...delivered.values()].find((p) => p.type === 'monitor.page');
    assert.equal(page.success, true);
    assert.equal(page.id, check.id);
    assert.deepEqual(page.metadata, { ticket: 42 });
    assert.equal(page.data[0].status, 'new');
    assert.equal(page.data[0].monitorId, check.monitorId);
    const completed = [...delivered.values()].find((p) => p.type === 'monitor.check.completed');
    assert.deepEqual(completed.data[0].summary, check.summary);

    // An unchanged check sends no page events, only the completion.
    received.length = 0;
    await run(['monitor', 'run', 'Hooked'], { env });
    assert.deepEqual(
      received.map((d) => JSON.parse(d.body).type),
      ['monitor.check.completed'],
    );
  });

  it('is not held by a dead webhook: one attempt, the check reported as it ended, the retries left to the outbox', async () => {
    // The default configuration: no deliveryWaitSeconds.
    const env = { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir() };
    let attempts = 0;
    const dead = await startServer({ '/hook': (_q, r) => void (attempts++, r.writeHead(503).end('down for maintenance')) });
    try {
      await run(['monitor', 'apply', '-f', monitorFile('Dead hook', `  url: ${dead.origin}/hook\n  events: [monitor.check.completed]\n`)], { env });
      const ran = await run(['monitor', 'run', 'Dead hook'], { env: { ...env, NO_COLOR: '1' }, tty: true, now: () => new Date() });
      assert.equal(ran.code, 0);
      assert.match(ran.stdout, /^check \S+ completed: /m);
      assert.match(ran.stderr, /warning: webhook: 1 delivery not made yet after attempt 1 of 8 \(the outbox retries it/);
      assert.equal(attempts, 1, 'no retry held the command');
    } finally {
      await dead.close();
    }
  });

  it('Ctrl-C while a webhook holds the delivery: the check is reported as it ended, exit 130, the delivery left to the outbox', async () => {
    const home = tempDir();
    const held: ServerResponse[] = [];
    let reached: () => void = () => undefined;
    const delivering = new Promise<void>((resolve) => (reached = resolve));
    const hanging = await startServer({ '/hook': (_q, r) => void (held.push(r), reached()) });
    try {
      const env = { WEBWATCH_HOME: home, XDG_CONFIG_HOME: tempDir() };
      await run(['monitor', 'apply', '-f', monitorFile('Held hook', `  url: ${hanging.origin}/hook\n  events: [monitor.check.completed]\n`)], { env });
      const child = spawn(process.execPath, [BIN, 'monitor', 'run', 'Held hook'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      // The receiver has the delivery: the check is saved; Ctrl-C now.
      await delivering;
      child.kill('SIGINT');
      assert.equal(await exited, EXIT.interrupted);
      assert.match(stdout, /^check \S+ completed: 0 changed, 2 new, 0 removed, 0 same, 0 errors \(2 pages\)\n$/);
      assert.match(stderr, /interrupted while delivering the check's notifications: those not delivered stay in the outbox/);
      assert.doesNotMatch(stderr, /^error: interrupted$/m);
      const checks = JSON.parse((await run(['monitor', 'checks', 'Held hook', '--json'], { env })).stdout);
      assert.equal(checks[0].status, 'completed');
    } finally {
      for (const response of held) response.destroy();
      await hanging.close();
    }
  });

  it('keeps what cannot be delivered in the outbox for the next run, and fails 4xx answers for good', async () => {
    const home = tempDir();
    const config = writeFiles({ 'webwatch/config.yaml': 'deliveryWaitSeconds: 0\n' });
    const env = { WEBWATCH_HOME: home, XDG_CONFIG_HOME: config };
    const down = await startServer({});
    const downUrl = `${down.origin}/hook`;
    await down.close();
    const file = monitorFile('Later', `  url: ${downUrl}\n  events: [monitor.check.completed]\n`);
    await run(['monitor', 'apply', '-f', file], { env });
    const firstRun = await run(['monitor', 'run', 'Later', '--json'], { env });
    const first = JSON.parse(firstRun.stdout);
    const { lastError, ...counts } = first.notificationStatus.webhook;
    assert.deepEqual(counts, { pending: 1, delivered: 0, failed: 0, attempts: 1 });
    assert.match(lastError, /ECONNREFUSED|refused/i);
    assert.match(
      firstRun.stderr,
      /warning: webhook: 1 delivery not made yet after attempt 1 of 8 \(the outbox retries it: serve's scheduler, or the next monitor run --due\): .*refused/i,
    );

    // The receiver moves to a live address; the pending delivery still targets the old one and
    // is retried when due. A new check's delivery goes to the new address and is delivered.
    received.length = 0;
    await run(['monitor', 'apply', '-f', monitorFile('Later', `  url: ${receiver.origin}/hook\n  events: [monitor.check.completed]\n`)], { env });
    const second = JSON.parse((await run(['monitor', 'run', 'Later', '--json'], { env })).stdout);
    assert.deepEqual(second.notificationStatus, { webhook: { pending: 0, delivered: 1, failed: 0 } });
    const checks = JSON.parse((await run(['monitor', 'check', 'Later', first.id, '--json'], { env })).stdout);
    assert.equal(checks.notificationStatus.webhook.pending, 1);
    assert.deepEqual(
      checks.deliveries.map((d: { status: string; target: string; attempts: number }) => [d.status, d.target, d.attempts]),
      [['pending', downUrl, 1]],
    );
    // On a terminal, `check` lists each delivery with its last error (on stderr: stdout stays the pages).
    const shown = await run(['monitor', 'check', 'Later', first.id.slice(0, 8)], { env });
    assert.match(shown.stderr, /notifications:\n[\s\S]*webhook\s+monitor\.check\.completed\s+pending\s+1\s+\S+\/hook\s+.*refused/i);

    answers = [(response) => void response.writeHead(400).end('bad')];
    await run(['monitor', 'apply', '-f', monitorFile('Refused', `  url: ${receiver.origin}/hook\n  events: [monitor.check.completed]\n`)], { env });
    const refusedRun = await run(['monitor', 'run', 'Refused', '--quiet'], { env });
    assert.match(refusedRun.stderr, /^warning: webhook: 1 delivery failed after 1 attempt: .*400/m);
    const refused = JSON.parse((await run(['monitor', 'check', 'Refused', 'latest', '--json'], { env })).stdout);
    assert.deepEqual(
      { ...refused.notificationStatus.webhook, lastError: undefined },
      { pending: 0, delivered: 0, failed: 1, attempts: 1, lastError: undefined },
    );
  });

  it('backs off exponentially with jitter, honours Retry-After, and gives up after the last attempt', () => {
    const now = new Date('2026-11-21T00:00:00Z');
    assert.equal(retryAt(1, undefined, now, () => 0.5)!.toISOString(), '2026-11-21T00:00:02.500Z');
    assert.equal(retryAt(3, undefined, now, () => 0)!.toISOString(), '2026-11-21T00:00:08.000Z');
    assert.equal(retryAt(2, 120, now, () => 0.9)!.toISOString(), '2026-11-21T00:02:00.000Z');
    assert.equal(
      retryAt(MAX_ATTEMPTS, undefined, now, () => 0),
      undefined,
    );
  });
});
