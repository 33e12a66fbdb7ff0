/** Crawl jobs from the command line: --detach, status, list, cancel, errors, and Ctrl-C that cancels the API's crawl. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));

describe('crawl jobs from the command line', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let env: Record<string, string>;
  const held: (() => void)[] = [];
  before(async () => {
    const page = (body: string) => (_q: unknown, r: import('node:http').ServerResponse) => void r.writeHead(200, { 'content-type': 'text/html' }).end(body);
    site = await startServer({
      '/a': page('<main><p>a</p><a href="/b">b</a><a href="/missing">gone</a></main>'),
      '/b': page('<main><p>b</p></main>'),
      '/missing': (_q, r) => void r.destroy(),
      '/slow': (_q, r) => void held.push(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<main>slow</main>')),
    });
    served = await serveWebwatch();
    env = { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: (await served.keys.create('acme', new Date())).key, WEBWATCH_HOME: tempDir() };
  });
  after(async () => {
    for (const release of held) release();
    await served.stop();
    await site.close();
  });
  const ww = (args: string[]) => run(args, { env });
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('timed out');
  };

  it('--detach prints the id; status, list and cancel act on it', async () => {
    const started = await ww(['crawl', `${site.origin}/slow`, '--detach', '--sitemap', 'skip', '--ignore-robots-txt']);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(started.stderr, new RegExp(`webwatch crawl status ${id}`));
    const status = JSON.parse((await ww(['crawl', 'status', id, '--json'])).stdout);
    assert.equal(status.status, 'scraping');
    assert.deepEqual(
      JSON.parse((await ww(['crawl', 'list', '--json'])).stdout).map((c: { id: string }) => c.id),
      [id],
    );
    const cancelled = await ww(['crawl', 'cancel', id]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.match(cancelled.stderr, /cancelled/);
    assert.equal(JSON.parse((await ww(['crawl', 'status', id, '--json'])).stdout).status, 'cancelled');
    const again = await ww(['crawl', 'cancel', id]);
    assert.equal(again.code, 5, 'a crawl that has ended is a conflict');
    assert.match(again.stderr, /already ended \(cancelled\)/);
  });

  it('status --documents pages through every document; errors lists failed pages', async () => {
    const { stdout } = await ww(['crawl', `${site.origin}/a`, '--detach', '--json', '--sitemap', 'skip', '--ignore-robots-txt']);
    const { id } = JSON.parse(stdout);
    await until(async () => JSON.parse((await ww(['crawl', 'status', id, '--json'])).stdout).status !== 'scraping');
    const lines = (await ww(['crawl', 'status', id, '--documents', '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((l) => new URL(l.data.metadata.url).pathname).sort(), ['/a', '/b']);
    const errors = JSON.parse((await ww(['crawl', 'errors', id, '--json'])).stdout);
    assert.deepEqual(
      errors.errors.map((e: { url: string }) => new URL(e.url).pathname),
      ['/missing'],
    );
    const shown = await ww(['crawl', 'status', id]);
    assert.match(shown.stdout, new RegExp(`crawl ${id}: completed, 2 of 3 pages`));
  });

  it('on the embedded engine, says that crawl jobs need an API', async () => {
    for (const args of [
      ['crawl', 'status', 'abc'],
      ['crawl', `${site.origin}/a`, '--detach'],
      ['crawl', 'list'],
    ]) {
      const result = await run(args, { env: { WEBWATCH_HOME: tempDir() } });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /runs inside the command that started it[\s\S]*hint: run webwatch serve/);
    }
    const unknown = await ww(['crawl', 'status', '00000000-0000-4000-8000-000000000000']);
    assert.equal(unknown.code, 4);
    assert.match(unknown.stderr, /no crawl job with this id/);
  });

  it("Ctrl-C during a crawl on the API cancels the API's crawl", async () => {
    const child = spawn(process.execPath, [BIN, 'crawl', `${site.origin}/slow`, '--sitemap', 'skip', '--ignore-robots-txt'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let id = '';
    await until(async () => {
      const active = JSON.parse((await ww(['crawl', 'list', '--json'])).stdout) as { id: string }[];
      id = active[0]?.id ?? '';
      return id !== '';
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 130, stderr);
    assert.match(stderr, new RegExp(`crawl ${id} was cancelled on the API`));
    assert.equal(JSON.parse((await ww(['crawl', 'status', id, '--json'])).stdout).status, 'cancelled');
  });
});
