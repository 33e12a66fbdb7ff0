/**
 * What a person sees on a terminal, and what a pipe gets: tables that fit, spinner lines that
 * never glue to output, a pager for long diffs, serve's request log.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import stringWidth from 'string-width';
import { main } from '../../src/cli/main.js';
import { relativeTime } from '../../src/ui/table.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { fakeIo } from '../helpers/io.js';
import { inTerminal } from '../helpers/terminal.js';

const NOW = new Date('2026-11-21T12:00:00Z');

/** webwatch in-process with stdout a terminal of `columns` (or a pipe). */
async function ww(args: string[], env: Record<string, string>, options: { columns?: number } = {}) {
  const fake = fakeIo({ env, now: NOW, tty: options.columns !== undefined });
  if (options.columns !== undefined) Object.assign(fake.io.stdout, { columns: options.columns });
  const code = await main(args, fake.io);
  return { code, stdout: fake.stdout(), stderr: fake.stderr() };
}

/** A site whose pricing page says what `price` holds; each page answers after `delayMs`. */
async function site(delayMs = 0) {
  const state = { price: '$50' };
  const server: Server = createServer((request, response) =>
    setTimeout(() => {
      response.setHeader('content-type', 'text/html');
      if (request.url === '/')
        return response.end(
          `<html><head><title>Home</title></head><body><main><h1>Home</h1><p>Welcome to the example site, with text enough to be its main content.</p>${['a', 'b', 'c'].map((p) => `<a href="/${p}">${p}</a>`).join(' ')}</main></body></html>`,
        );
      if (request.url === '/pricing')
        return response.end(
          `<html><head><title>Pricing</title></head><body><main><h1>Pricing</h1>${Array.from({ length: 30 }, (_, i) => `<p>Plan ${i}: ${state.price} a month for ${i + 1} seats.</p>`).join('')}</main></body></html>`,
        );
      response.end(
        `<html><head><title>Page ${request.url}</title></head><body><main><h1>Page</h1><p>Some text of the page ${request.url}.</p></main></body></html>`,
      );
    }, delayMs),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { state, server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('relative times', () => {
  const table: [string, string][] = [
    ['2026-11-21T12:00:02Z', 'just now'],
    ['2026-11-21T11:59:18Z', '42 s ago'],
    ['2026-11-21T11:57:00Z', '3 min ago'],
    ['2026-11-21T07:00:00Z', '5 h ago'],
    ['2026-11-20T11:00:00Z', '1 day ago'],
    ['2026-11-18T12:00:00Z', '3 days ago'],
    ['2026-11-21T12:10:00Z', 'in 10 min'],
    ['2026-09-01T00:00:00Z', '2026-09-01'],
  ];
  for (const [then, said] of table) it(`${then} is "${said}" at noon`, () => assert.equal(relativeTime(new Date(then), NOW), said));
});

describe('tables, piped and on a terminal', () => {
  const env = { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), NO_COLOR: '1' };
  let pricing: Awaited<ReturnType<typeof site>>;
  let ids: Record<string, string>;

  before(async () => {
    pricing = await site();
    const files = writeFiles({
      'm.yaml':
        `name: Acme pricing\nschedule: { cron: "*/15 * * * *" }\ntargets: [{ type: scrape, urls: ["${pricing.origin}/pricing"] }]\n---\n` +
        `name: A monitor whose name is much too long to fit beside the others in a narrow terminal\nschedule: { cron: "0 * * * *" }\ntargets: [{ type: scrape, urls: ["${pricing.origin}/a"] }]\n`,
    });
    assert.equal((await ww(['monitor', 'apply', '-f', join(files, 'm.yaml')], env)).code, 0);
    const listed = JSON.parse((await ww(['--json', 'monitor', 'list'], env)).stdout) as { id: string; name: string }[];
    ids = Object.fromEntries(listed.map((m) => [m.name, m.id]));
  });
  after(() => pricing.server.close());

  it('piped: tab-separated rows, whole ids and times, no header', async () => {
    const { stdout } = await ww(['monitor', 'list'], env);
    const rows = stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.equal(rows.length, 2);
    const row = rows.find((r) => r[1] === 'Acme pricing')!;
    assert.equal(row[0], ids['Acme pricing']);
    assert.equal(row[4], '2026-11-21T12:15:00.000Z');
  });

  it('on a terminal: plain columns, short ids, relative times, cut to the width with …', async () => {
    const { stdout } = await ww(['monitor', 'list'], env, { columns: 72 });
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^id {8}name +status +schedule +next run +last check$/);
    assert.doesNotMatch(stdout, /[│┌─]/);
    for (const line of lines) assert.ok(stringWidth(line) <= 72, `fits 72 columns: ${JSON.stringify(line)}`);
    const row = lines.find((line) => line.includes('Acme pricing'))!;
    assert.ok(row.startsWith(`${ids['Acme pricing']!.slice(0, 8)}  `), row);
    assert.match(row, /in 15 min/);
    assert.match(lines.find((line) => line.startsWith(ids[Object.keys(ids).find((n) => n.startsWith('A monitor'))!]!.slice(0, 8)))!, /A monitor wh\S*…/);
    // The short id is a reference every command takes.
    const got = await ww(['--json', 'monitor', 'get', ids['Acme pricing']!.slice(0, 8)], env);
    assert.equal(JSON.parse(got.stdout).name, 'Acme pricing');
  });

  it('checks: the check that found a change is highlighted', async () => {
    const colour = { ...env, NO_COLOR: '' };
    assert.equal((await ww(['monitor', 'run', 'Acme pricing'], env)).code, 0);
    assert.equal((await ww(['monitor', 'run', 'Acme pricing'], env)).code, 0);
    pricing.state.price = '$65';
    assert.equal((await ww(['monitor', 'run', 'Acme pricing'], env)).code, 0);
    const { stdout } = await ww(['monitor', 'checks', 'Acme pricing'], colour, { columns: 100 });
    const rows = stdout.trimEnd().split('\n').slice(1);
    assert.equal(rows.length, 3);
    // Newest first: changed, same, new (a new page is news too).
    assert.match(rows[0]!, /^\x1b\[33m.*1\/0\/0\/0\/0/);
    assert.doesNotMatch(rows[1]!, /\x1b\[33m/);
    assert.match(rows[2]!, /^\x1b\[33m.*0\/1\/0\/0\/0/);
  });
});

describe('on a pseudo-terminal', () => {
  const home = tempDir();
  const env = { WEBWATCH_HOME: home, XDG_CONFIG_HOME: home, HOME: home, NO_COLOR: '1' };
  let slow: Awaited<ReturnType<typeof site>>;

  before(async () => {
    slow = await site(60);
  });
  after(() => slow.server.close());

  it('the crawl spinner is cleared before each line of output, never glued to it', async () => {
    const run = await inTerminal(['crawl', `${slow.origin}/`, '--max-age', '0'], { env });
    assert.equal(run.code, 0, run.raw);
    assert.match(run.raw, /crawling http/, 'the spinner was drawn');
    // The pages are one table under its header once the crawl ends, each row on its own line.
    assert.ok(
      run.screen.some((line) => /^url +code +title$/.test(line)),
      JSON.stringify(run.screen),
    );
    for (const page of ['/', '/a', '/b', '/c']) {
      const line = run.screen.find((l) => new RegExp(`^${slow.origin}${page} +200 `).test(l));
      assert.ok(line, `${page} starts its own line: ${JSON.stringify(run.screen)}`);
    }
    assert.ok(!run.screen.some((line) => /crawling http/.test(line)), `no spinner left on screen: ${JSON.stringify(run.screen)}`);
  });

  it('a long diff goes through $PAGER; --no-pager prints it; a short one is printed', async () => {
    const files = writeFiles({ 'm.yaml': `name: Prices\nschedule: { cron: "0 * * * *" }\ntargets: [{ type: scrape, urls: ["${slow.origin}/pricing"] }]\n` });
    const cli = (args: string[]) => ww(args, env);
    assert.equal((await cli(['monitor', 'apply', '-f', join(files, 'm.yaml')])).code, 0);
    slow.state.price = '$50';
    assert.equal((await cli(['monitor', 'run', 'Prices'])).code, 0);
    slow.state.price = '$65';
    assert.equal((await cli(['monitor', 'run', 'Prices'])).code, 0);

    const paged = join(tempDir(), 'paged.txt');
    const viaPager = await inTerminal(['monitor', 'check', 'prices', 'latest'], { env: { ...env, PAGER: `cat > ${paged}` }, rows: 20 });
    assert.equal(viaPager.code, 0, viaPager.raw);
    assert.match(readFileSync(paged, 'utf8'), /\+Plan 0: \$65 a month/);
    assert.ok(!viaPager.screen.some((line) => line.startsWith('+Plan 0')), 'the diff went to the pager, not the screen');
    assert.ok(
      viaPager.screen.some((line) => line.startsWith('changed')),
      'the page table is printed before',
    );

    const unpaged = join(tempDir(), 'unpaged.txt');
    const noPager = await inTerminal(['--no-pager', 'monitor', 'check', 'prices', 'latest'], { env: { ...env, PAGER: `cat > ${unpaged}` }, rows: 20 });
    assert.ok(
      noPager.screen.some((line) => line.startsWith('+Plan 0: $65 a month')),
      noPager.raw,
    );
    assert.equal(existsSync(unpaged), false);

    const tall = await inTerminal(['monitor', 'check', 'prices', 'latest'], { env: { ...env, PAGER: `cat > ${unpaged}` }, rows: 200 });
    assert.ok(
      tall.screen.some((line) => line.startsWith('+Plan 0: $65 a month')),
      'fits the terminal: printed',
    );
    assert.equal(existsSync(unpaged), false);

    const missing = await inTerminal(['monitor', 'check', 'prices', 'latest'], { env: { ...env, PAGER: 'no-such-pager-here' }, rows: 20 });
    assert.ok(
      missing.screen.some((line) => line.startsWith('+Plan 0: $65 a month')),
      'a pager that cannot run: printed',
    );
  });
});

describe('serve request log', () => {
  const BIN = new URL('../../../bin/webwatch.js', import.meta.url).pathname;

  async function serveAndAsk(args: string[]): Promise<string> {
    const home = tempDir();
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
      env: { PATH: process.env.PATH, WEBWATCH_HOME: home, XDG_CONFIG_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 10_000);
      child.stderr.on('data', () => {
        const found = /the v2 API at (http:\/\/[^/\s]+)\/v2/.exec(stderr);
        if (found) clearTimeout(timer), resolve(found[1]!);
      });
    });
    await fetch(`${origin}/v2/monitor`);
    await fetch(`${origin}/v2/monitor/%1b%5b31mred?token=secret`, { headers: { authorization: 'Bearer nope' } });
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('close', resolve));
    return stderr;
  }

  it('piped: JSON lines, without query strings', async () => {
    const log = await serveAndAsk([]);
    const completed = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; res?: { statusCode: number } })
      .filter((l) => l.msg === 'request completed');
    assert.deepEqual(
      completed.map((l) => l.res?.statusCode),
      [401, 401],
    );
    assert.ok(!log.includes('secret'));
  });

  it('--log-format text: one readable line per request, control characters escaped', async () => {
    const log = await serveAndAsk(['--log-format', 'text']);
    const lines = log.split('\n').filter((l) => / (GET|POST) /.test(l));
    assert.equal(lines.length, 2, log);
    assert.match(lines[0]!, /^\d\d:\d\d:\d\d {2}GET \/v2\/monitor {2}401 {2}[\d.]+ ms$/);
    assert.match(lines[1]!, /^\d\d:\d\d:\d\d {2}GET \/v2\/monitor\/%1b%5b31mred {2}401 /);
    assert.ok(!log.includes('{"level"'), 'no JSON lines');
    assert.ok(!log.includes('secret'));
  });
});
