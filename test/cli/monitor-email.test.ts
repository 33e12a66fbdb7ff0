/** E-mail summaries of checks through a real SMTP server on loopback (smtp-server). */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { EXIT } from '../../src/errors/exit-codes.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';

interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/** Quoted-printable soft breaks and escapes undone, so assertions read the text as sent. */
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('e-mail summaries', () => {
  let site: TestServer;
  let smtp: SMTPServer;
  let smtpUrl: string;
  const mails: Mail[] = [];
  /** SMTP replies to the next messages, in order; then accepted. */
  let replies: (Error & { responseCode?: number })[] = [];
  let price = '$10';
  before(async () => {
    site = await startServer({
      '/pricing': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Pricing</h1><p>Pro: ${price}</p></main>`),
      '/about': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>About</p></main>'),
    });
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk) => (raw += chunk));
        stream.on('end', () => {
          const reply = replies.shift();
          if (reply) return callback(reply);
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: unfold(raw),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await site.close();
  });

  const monitorFile = (includeDiffs: boolean) =>
    writeFiles({
      'm.yaml': `name: Pricing watch\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/pricing", "${site.origin}/about"]}]\nnotification:\n  email: {enabled: true, includeDiffs: ${includeDiffs}, recipients: [ops@example.com, cto@example.com]}\n`,
    });

  it('sends one summary per check with changes, with the diffs when asked, as text and HTML', async () => {
    const env = { WEBWATCH_HOME: tempDir(), WEBWATCH_SMTP_URL: smtpUrl, WEBWATCH_SMTP_FROM: 'webwatch@example.com' };
    await run(['monitor', 'apply', '-f', monitorFile(true)], { env });
    const first = JSON.parse((await run(['monitor', 'run', 'Pricing watch', '--json'], { env })).stdout);
    assert.deepEqual(first.notificationStatus, { email: { pending: 0, delivered: 1, failed: 0 } });
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.from, 'webwatch@example.com');
    assert.deepEqual(mails[0]!.to, ['ops@example.com', 'cto@example.com']);
    assert.match(mails[0]!.raw, /Subject: \[webwatch\] Pricing watch: 2 new/);
    assert.match(mails[0]!.raw, /Content-Type: text\/plain/);
    assert.match(mails[0]!.raw, /Content-Type: text\/html/);

    // Nothing changed: no mail.
    await run(['monitor', 'run', 'Pricing watch'], { env });
    assert.equal(mails.length, 1);

    // The new price comes with markup as text, which the HTML part must show, not run.
    price = '$12 &lt;script&gt;alert(1)&lt;/script&gt;';
    await run(['monitor', 'run', 'Pricing watch'], { env });
    assert.equal(mails.length, 2);
    assert.match(mails[1]!.raw, /Subject: \[webwatch\] Pricing watch: 1 changed/);
    assert.match(mails[1]!.raw, /-Pro: \$10\r?\n\+Pro: \$12/);
    // HTML: the two sides, the changed words marked and styled inline for mail readers.
    const htmlPart = mails[1]!.raw.slice(mails[1]!.raw.indexOf('Content-Type: text/html'));
    assert.match(htmlPart, /Pro: \$<del style="[^"]*line-through[^"]*">10<\/del>/);
    assert.match(htmlPart, /Pro: \$<ins style="[^"]*">12[^<]*<\/ins>/);
    assert.doesNotMatch(htmlPart, /<script|<pre>/);
    assert.match(htmlPart, /&#60;script&#62;alert\(1\)/);
    price = '$10';
  });

  it('retries a 4xx reply, fails a 5xx reply for good, and says so without an SMTP server', async () => {
    const env = { WEBWATCH_HOME: tempDir(), WEBWATCH_SMTP_URL: smtpUrl, WEBWATCH_SMTP_FROM: 'webwatch@example.com' };
    await run(['monitor', 'apply', '-f', monitorFile(false)], { env });
    replies = [Object.assign(new Error('mailbox busy'), { responseCode: 451 })];
    const before = mails.length;
    // The retry comes 2 to 3 s later by the real clock.
    const retried = JSON.parse(
      (
        await run(['monitor', 'run', 'Pricing watch', '--json'], {
          env: { ...env, XDG_CONFIG_HOME: writeFiles({ 'webwatch/config.yaml': 'deliveryWaitSeconds: 5\n' }) },
          now: () => new Date(),
        })
      ).stdout,
    );
    assert.deepEqual(retried.notificationStatus, { email: { pending: 0, delivered: 1, failed: 0 } }, 'delivered on the second attempt');
    assert.equal(mails.length, before + 1);

    const env2 = { WEBWATCH_HOME: tempDir(), WEBWATCH_SMTP_URL: smtpUrl, WEBWATCH_SMTP_FROM: 'webwatch@example.com' };
    await run(['monitor', 'apply', '-f', monitorFile(false)], { env: env2 });
    replies = [Object.assign(new Error('no such mailbox'), { responseCode: 550 })];
    const refusedRun = await run(['monitor', 'run', 'Pricing watch', '--json'], { env: env2 });
    const refused = JSON.parse(refusedRun.stdout);
    assert.deepEqual({ ...refused.notificationStatus.email, lastError: undefined }, { pending: 0, delivered: 0, failed: 1, attempts: 1, lastError: undefined });
    assert.match(refused.notificationStatus.email.lastError, /no such mailbox/);
    assert.match(refusedRun.stderr, /warning: email: 1 delivery failed after 1 attempt: .*no such mailbox/);

    const env3 = { WEBWATCH_HOME: tempDir() };
    await run(['monitor', 'apply', '-f', monitorFile(false)], { env: env3 });
    const unconfigured = await run(['monitor', 'run', 'Pricing watch', '--json'], { env: env3 });
    assert.equal(unconfigured.code, EXIT.ok, 'a notification problem does not fail the check');
    assert.equal(JSON.parse(unconfigured.stdout).notificationStatus.email.failed, 1);
    assert.match(unconfigured.stderr, /warning: email: 1 delivery failed after 1 attempt: .*SMTP/i);
  });

  it('without a configured sender, mails go from webwatch@<host name>', async () => {
    const env = { WEBWATCH_HOME: tempDir(), WEBWATCH_SMTP_URL: smtpUrl };
    await run(['monitor', 'apply', '-f', monitorFile(false)], { env });
    const before = mails.length;
    const result = await run(['monitor', 'run', 'Pricing watch', '--json'], { env });
    assert.equal(JSON.parse(result.stdout).notificationStatus.email.delivered, 1, result.stderr);
    assert.equal(mails.length, before + 1);
    assert.equal(mails.at(-1)!.from, `webwatch@${hostname()}`);
  });
});
