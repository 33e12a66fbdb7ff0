/**
 * Colour on a real pseudo-terminal: our own styling arrives as escape sequences that act, and
 * text from outside (monitor and file names, pages, an API's answers) as visible escapes, even
 * inside our colours.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Output } from '../../src/ui/output.js';
import { renderRows } from '../../src/ui/table.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { fakeIo, run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { inTerminal } from '../helpers/terminal.js';

/** What a hostile name or page holds: red, then a word to tell it from our own red. */
const HOSTILE = '\u001b[31mred';
/** The same, as a person sees it once escaped. */
const SHOWN = '\\x1b[31mred';
/** Any colour or weight (SGR) sequence. */
const SGR = /\u001b\[[0-9;]*m/;

/** A terminal in colour, as most people have it: no NO_COLOR, a 256-colour TERM, FORCE_COLOR set. */
function colourEnv(extra: Record<string, string> = {}) {
  const home = tempDir();
  return { WEBWATCH_HOME: home, XDG_CONFIG_HOME: home, HOME: home, TERM: 'xterm-256color', FORCE_COLOR: '1', ...extra };
}

/** HOSTILE as shown: escaped, maybe quoted as JSON (`\u001b`) or markdown (`\[`) first. */
const HOSTILE_SHOWN = /\\(x1b|u001b)\\?\[31mred/g;

/** None of our styling shown as text (the only visible escapes are HOSTILE's), and HOSTILE never raw. */
function assertNoEscapedStyling(raw: string) {
  assert.doesNotMatch(raw.replace(HOSTILE_SHOWN, ''), /\\(x1b|u001b|u009b)/);
  assert.ok(!raw.includes(HOSTILE), `text from outside acted on the terminal: ${JSON.stringify(raw)}`);
}

const monitorYaml = (name: string, cron = '0 * * * *') =>
  `name: "${name}"\nschedule: { cron: "${cron}" }\ntargets: [{ type: scrape, urls: ["https://example.com/"] }]\n`;
const HOSTILE_YAML = 'Evil\\e[31mred';

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('monitor apply in colour', () => {
  it('says each monitor it applied, and the plan, in real colours, around names escaped', async () => {
    const env = colourEnv();
    const file = (acmeCron: string, evil = true) =>
      join(writeFiles({ 'm.yaml': `${monitorYaml('Acme', acmeCron)}${evil ? `---\n${monitorYaml(HOSTILE_YAML)}` : ''}` }), 'm.yaml');

    const created = await inTerminal(['monitor', 'apply', '-f', file('0 * * * *')], { env });
    assert.equal(created.code, 0, created.raw);
    // The live lines on stderr, as each monitor is applied...
    assert.match(created.raw, /\u001b\[32m\+ created Acme {2}\([0-9a-f-]{36}\)\u001b\[39m/);
    assert.match(created.raw, /\u001b\[32m\+ created Evil\\x1b\[31mred {2}\([0-9a-f-]{36}\)\u001b\[39m/);
    // ...said once: the plan on the same terminal leaves out what was said.
    assert.doesNotMatch(created.raw, /\+ create {4}Acme/);
    assert.doesNotMatch(created.raw, /\+ create {4}Evil/);
    assertNoEscapedStyling(created.raw);

    const updated = await inTerminal(['monitor', 'apply', '-f', file('30 * * * *')], { env });
    assert.equal(updated.code, 0, updated.raw);
    assert.match(updated.raw, /\u001b\[33m~ updated Acme {2}\(/);
    assert.doesNotMatch(updated.raw, /~ update {4}Acme/);
    assert.match(
      updated.raw,
      /~ updated Acme {2}\([0-9a-f-]{36}\)\u001b\[39m\r?\n {4}schedule\.cron: "0 \* \* \* \*" -> "30 \* \* \* \*"/,
      'its changes under it',
    );
    assert.match(updated.raw, /\u001b\[2m= unchanged Evil\\x1b\[31mred {2}\(/);
    assertNoEscapedStyling(updated.raw);

    const pruned = await inTerminal(['monitor', 'apply', '--prune', '--yes', '-f', file('30 * * * *', false)], { env });
    assert.equal(pruned.code, 0, pruned.raw);
    // Our red around their red, shown.
    assert.match(pruned.raw, /\u001b\[31m- deleted Evil\\x1b\[31mred {2}\([0-9a-f-]{36}\)\u001b\[39m/);
    assertNoEscapedStyling(pruned.raw);
  });

  it('refuses invalid files as validate does: located lines and error in colour, the file name and field escaped', async () => {
    const dir = writeFiles({ [`bad${HOSTILE}.yaml`]: `${monitorYaml('Bad')}"\\e[31mred": 1\n` });
    const refused = await inTerminal(['monitor', 'apply', '-f', dir], { env: colourEnv() });
    assert.equal(refused.code, 2, refused.raw);
    assert.match(refused.raw, /\u001b\[1m[^\n]*bad\\x1b\[31mred\.yaml:\d+:\d+\u001b\[22m/);
    assert.match(refused.raw, /unknown field "\\x1b\[31mred"/);
    assert.match(refused.raw, /\u001b\[31merror: [^\n]*\u001b\[39m/);
    assertNoEscapedStyling(refused.raw);
  });
});

describe('errors in colour', () => {
  it('error: in red and hint: dim, the monitor asked for escaped', async () => {
    const failed = await inTerminal(['monitor', 'get', `Nope${HOSTILE}`], { env: colourEnv() });
    assert.equal(failed.code, 4, failed.raw);
    assert.match(failed.raw, /\u001b\[31merror:\u001b\[39m monitor "Nope\\u001b\[31mred"/);
    assert.match(failed.raw, /\u001b\[2mhint:\u001b\[22m /);
    assertNoEscapedStyling(failed.raw);
  });

  it('validate: file names bold, the summary red, what came from the file escaped', async () => {
    const dir = writeFiles({ [`bad${HOSTILE}.yaml`]: `${monitorYaml('Bad')}"\\e[31mred": 1\n` });
    const failed = await inTerminal(['monitor', 'validate', dir], { env: colourEnv() });
    assert.equal(failed.code, 2, failed.raw);
    assert.match(failed.raw, /\u001b\[1m[^\n]*bad\\x1b\[31mred\.yaml:\d+:\d+\u001b\[22m/);
    assert.match(failed.raw, /\u001b\[31m✗ 1 error in 1 of 1 file\u001b\[39m/);
    assertNoEscapedStyling(failed.raw);
  });
});

describe('scrape in colour', () => {
  let site: TestServer;
  before(async () => {
    site = await startServer({
      '/': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>Title</title></head><body><main><h1>Heading${HOSTILE}</h1><p>Text enough to be the main content of the page.</p></main></body></html>`,
          ),
    });
  });
  after(() => site.close());

  it('a failed page says error: in red; the spinner is ours to colour; the page escaped', async () => {
    const refused = `http://127.0.0.1:${await closedPort()}/`;
    const scraped = await inTerminal(['scrape', '--max-age', '0', `${site.origin}/`, refused], { env: colourEnv() });
    assert.equal(scraped.code, 1, scraped.raw);
    assert.match(scraped.raw, new RegExp(`\u001b\\[31merror:\u001b\\[39m ${refused.replace(/[.]/g, '\\.')}: `));
    // The page's escape character is dropped by the engine; the markdown escapes "[".
    assert.match(scraped.raw, /# Heading\\\[31mred/);
    assert.match(scraped.raw, /\u001b\[36m/, 'the spinner in colour');
    assertNoEscapedStyling(scraped.raw);
  });

  it('NO_COLOR and FORCE_COLOR=0: no colour at all, the spinner neither', async () => {
    const refused = `http://127.0.0.1:${await closedPort()}/`;
    for (const none of [{ NO_COLOR: '1' }, { FORCE_COLOR: '0' }] as Record<string, string>[]) {
      const scraped = await inTerminal(['scrape', '--max-age', '0', `${site.origin}/`, refused], { env: colourEnv(none) });
      assert.match(scraped.raw, /scraping 0\/2/, 'the spinner was drawn');
      assert.doesNotMatch(scraped.raw, SGR, `${JSON.stringify(none)}: ${JSON.stringify(scraped.raw)}`);
      assert.match(scraped.raw, /error: http/);
      const failed = await inTerminal(['monitor', 'get', 'Nope'], { env: colourEnv(none) });
      assert.doesNotMatch(failed.raw, SGR, `${JSON.stringify(none)}: ${JSON.stringify(failed.raw)}`);
    }
  });

  it('FORCE_COLOR=1 puts no colour into a pipe', async () => {
    const piped = await run(['monitor', 'get', 'Nope'], { env: { FORCE_COLOR: '1', TERM: 'xterm-256color' } });
    assert.equal(piped.code, 4);
    assert.match(piped.stderr, /^error: monitor "Nope"/);
    assert.doesNotMatch(piped.stdout + piped.stderr, SGR);
  });
});

describe('a check of an API in colour', () => {
  const MONITOR = '11111111-1111-4111-8111-111111111111';
  const CHECK = '22222222-2222-4222-8222-222222222222';
  let api: TestServer;
  before(async () => {
    const check = {
      id: CHECK,
      monitorId: MONITOR,
      status: 'completed',
      trigger: 'manual',
      scheduledFor: null,
      startedAt: '2026-11-21T11:59:00Z',
      finishedAt: '2026-11-21T12:00:00Z',
      error: null,
      summary: { totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 },
      notificationStatus: { [`web${HOSTILE}`]: { pending: 1, delivered: 0, failed: 0, attempts: 1, lastError: `refused${HOSTILE}` } },
      deliveries: [
        {
          channel: 'webhook',
          event: 'monitor.check.completed',
          status: 'pending',
          attempts: 1,
          target: 'https://hooks.example/in',
          lastError: `refused${HOSTILE}`,
        },
      ],
      pages: [],
    };
    api = await startServer({
      [`/v2/monitor/${MONITOR}/checks/${CHECK}`]: (_q, r) =>
        void r.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: check })),
    });
  });
  after(() => api.close());

  it('the notifications table and the warning on stderr escape the answer, with stdout piped', async () => {
    const argv = ['--api-url', `${api.origin}/v2`, '--api-key', 'k', 'monitor', 'check', MONITOR, CHECK];
    // stdout into a file, stderr on the terminal: the table among the messages is the terminal's.
    const shown = await inTerminal(argv, { env: colourEnv(), before: `exec 1>${join(tempDir(), 'stdout.txt')}` });
    assert.equal(shown.code, 0, shown.raw);
    assert.match(shown.raw, /\u001b\[1mchannel +event +state +attempts +to +last error\u001b\[22m/);
    assert.match(shown.raw, /webhook +monitor\.check\.completed +pending +1 +https:\/\/hooks\.example\/in +refused\\x1b\[31mred/);
    assert.match(shown.raw, /\u001b\[33mwarning:\u001b\[39m web\\x1b\[31mred: 1 delivery not made yet [^\n]*: refused\\x1b\[31mred/);
    assertNoEscapedStyling(shown.raw);
  });
});

describe('a table among the messages', () => {
  const rows = [['webhook', `refused${HOSTILE}`]];
  const output = async (tty: { stdout: boolean; stderr: boolean }) => {
    const fake = fakeIo({ tty: true, env: { NO_COLOR: '', TERM: 'xterm-256color' } });
    Object.assign(fake.io.stdout, { isTTY: tty.stdout });
    Object.assign(fake.io.stderr, { isTTY: tty.stderr });
    return { fake, output: await Output.create(fake.io, { json: false, color: true, quiet: false }) };
  };

  it('stderr piped, stdout a terminal: tab-separated, escaped, no colour', async () => {
    const { fake, output: out } = await output({ stdout: true, stderr: false });
    out.info(await renderRows(out, ['channel', 'last error'], rows, { stream: 'stderr' }));
    assert.equal(fake.stderr(), `webhook\trefused${SHOWN}\n`);
  });

  it('stderr a terminal, stdout piped: a table with a bold header, escaped', async () => {
    const { fake, output: out } = await output({ stdout: false, stderr: true });
    out.info(await renderRows(out, ['channel', 'last error'], rows, { stream: 'stderr' }));
    assert.match(fake.stderr(), /^\u001b\[1mchannel {2}last error\u001b\[22m\nwebhook {2}refused\\x1b\[31mred\n$/);
  });
});
