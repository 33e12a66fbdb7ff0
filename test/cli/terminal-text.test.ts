/**
 * Text from outside (definition files, monitor names, pages, API errors) reaches a terminal with
 * its control characters escaped; piped data and JSON stay byte for byte what they were.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { escapeControls } from '../../src/ui/terminal-text.js';

/** Any control character a terminal would act on (newline and tab are layout). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** Red, the title of the window, and the C1 form of CSI: what a hostile file would send. */
const RED = '\u001b[31m';
const TITLE = '\u001b]0;pwned\u0007';
const CSI = '\u009b';

const monitorYaml = (name: string, extra = '') =>
  `name: "${name}"\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [https://example.com/]\n${extra}`;

describe('escapeControls', () => {
  it('escapes C0 controls but newline and tab, DEL and C1 controls, and nothing else', () => {
    assert.equal(escapeControls(`a${RED}b\u0000\r\u007f${CSI}\u0085`), 'a\\x1b[31mb\\x00\\x0d\\x7f\\u009b\\u0085');
    assert.equal(escapeControls('line\n\tindented é € 😀 \u00a0'), 'line\n\tindented é € 😀 \u00a0');
  });
});

describe('validate and apply', () => {
  // Escapes written as YAML escapes, so the file itself is plain text.
  const EVIL_NAME = 'Evil\\e[31m\\u009b';
  const evilFile = () =>
    writeFiles({
      'a.yaml': monitorYaml(EVIL_NAME, '"\\e[31mEVIL\\e]0;pwned\\a": 1\n'),
      'b.yaml': monitorYaml(EVIL_NAME),
    });

  it('escapes an unknown key and a monitor name in the messages, even when piped', async () => {
    const dir = evilFile();
    const result = await run(['monitor', 'validate', dir]);
    assert.equal(result.code, 2);
    assert.doesNotMatch(result.stdout + result.stderr, RAW_CONTROL);
    assert.match(result.stdout, /unknown field "\\x1b\[31mEVIL\\x1b\]0;pwned\\x07"/);
    assert.match(result.stdout, /duplicate monitor name "Evil\\x1b\[31m\\u009b"/);
  });

  it('keeps its own colours on a terminal and escapes only what came from the file', async () => {
    const dir = evilFile();
    const result = await run(['monitor', 'validate', join(dir, 'a.yaml')], { tty: true, env: { NO_COLOR: '' } });
    assert.ok(result.stdout.includes('\u001b[1m'), 'bold file names');
    assert.ok(!result.stdout.includes(`${RED}EVIL`));
    assert.ok(result.stdout.includes('\\x1b[31mEVIL'));
  });

  it('escapes them on stderr when apply refuses the files', async () => {
    const result = await run(['monitor', 'apply', '-f', evilFile()]);
    assert.equal(result.code, 2);
    assert.doesNotMatch(result.stderr, RAW_CONTROL);
    assert.match(result.stderr, /unknown field "\\x1b\[31mEVIL/);
  });

  it('JSON keeps the text exactly, as JSON escapes', async () => {
    const result = await run(['monitor', 'validate', '--json', join(evilFile(), 'b.yaml')]);
    assert.equal(JSON.parse(result.stdout).files[0].monitors[0].name, `Evil${RED}${CSI}`);
  });
});

describe('data from the engine', () => {
  let server: TestServer;
  let price = '$10';
  before(async () => {
    server = await startServer({
      '/page': (_q, r) =>
        void r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<main><h1>Offer${TITLE}</h1><p>Price: ${price}</p></main>`),
    });
  });
  after(() => server.close());

  it('names in plans and tables: escaped on a terminal, byte-exact when piped', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const name = `Shop${RED}${CSI}`;
    const dir = writeFiles({ 'm.yaml': monitorYaml('Shop\\e[31m\\u009b') });
    const applied = await run(['monitor', 'apply', '-f', dir], { env, tty: true });
    assert.equal(applied.code, 0);
    assert.ok(!applied.stdout.includes(RED) && !applied.stdout.includes(CSI));
    assert.ok(!applied.stderr.includes(RED) && !applied.stderr.includes(CSI));
    // On a terminal the monitor is said once, on stderr as it is applied.
    assert.match(applied.stderr, /\+ created Shop\\x1b\[31m\\u009b/);
    const table = await run(['monitor', 'list'], { env: { ...env, NO_COLOR: '1' }, tty: true });
    assert.doesNotMatch(table.stdout, RAW_CONTROL);
    assert.match(table.stdout, /Shop\\x1b\[31m\\u009b/);
    const piped = await run(['monitor', 'list'], { env });
    assert.equal(piped.stdout.split('\t')[1], name);
  });

  it('page content in diffs and scraped markdown: its control characters dropped, on a terminal and piped alike', async () => {
    const env = { WEBWATCH_HOME: tempDir(), NO_COLOR: '' };
    const url = `${server.origin}/page`;
    await run(['monitor', 'apply', '-f', writeFiles({ 'm.yaml': monitorYaml('Offers').replace('https://example.com/', url) })], { env });
    await run(['monitor', 'run', 'Offers'], { env });
    price = `${RED}$12${CSI}`;
    const check = JSON.parse((await run(['monitor', 'run', 'Offers', '--json'], { env })).stdout);
    const shown = await run(['monitor', 'check', 'Offers', check.id], { env, tty: true });
    assert.ok(!shown.stdout.includes(TITLE) && !shown.stdout.includes('\u001b\\[31m'));
    // The engine drops the page's control characters; the markdown escapes "[" as "\[".
    assert.match(shown.stdout, /\u001b\[32m\+Price: \\\[31m\$12/);
    assert.match(shown.stdout, /# Offer\]0;pwned\n/);

    // CI: no spinner, which the fake terminal cannot draw.
    const tty = await run(['scrape', url], { env: { ...env, CI: '1' }, tty: true });
    assert.doesNotMatch(tty.stdout, RAW_CONTROL);
    assert.match(tty.stdout, /Offer\]0;pwned\n/);
    // Behind a pipe too (a terminal may still be at the end of it).
    const piped = await run(['scrape', url], { env });
    assert.doesNotMatch(piped.stdout, RAW_CONTROL);
    assert.ok(piped.stdout.includes('Offer]0;pwned\n'));
  });
});

describe('errors from an API', () => {
  let api: TestServer;
  before(async () => {
    api = await startServer(
      {},
      (_q, r) => void r.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, error: `Bad request${TITLE}${RED}` })),
    );
  });
  after(() => api.close());

  it('are escaped on stderr, and kept exactly in --json', async () => {
    const argv = ['--api-url', `${api.origin}/v2`, '--api-key', 'k', 'monitor', 'list'];
    const human = await run(argv);
    assert.equal(human.code, 2);
    assert.equal(human.stderr, 'error: Bad request\\x1b]0;pwned\\x07\\x1b[31m\n');
    const json = await run(['--json', ...argv]);
    assert.equal(JSON.parse(json.stdout).error, `Bad request${TITLE}${RED}`);
  });
});
