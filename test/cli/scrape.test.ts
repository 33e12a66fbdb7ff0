/** `webwatch scrape` in-process against a local site. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

describe('webwatch scrape', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      '/a': html('<title>A</title><main><h1>Page A</h1><p>Alpha <a href="/b">b</a></p></main>'),
      '/b': html('<title>B</title><main><h1>Page B</h1></main>'),
      '/echo': (request, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).end(`${request.headers['x-token']}|${request.headers['accept-language']}`),
    });
  });
  after(() => server.close());

  it('prints the markdown alone for one URL', async () => {
    const result = await run(['scrape', `${server.origin}/a`]);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `# Page A\n\nAlpha [b](${server.origin}/b)\n`);
    assert.equal(result.stderr, '');
  });

  it('--json prints {success, data} for one URL', async () => {
    const result = await run(['scrape', `${server.origin}/a`, '--json', '--format', 'markdown,links']);
    const body = JSON.parse(result.stdout);
    assert.equal(body.success, true);
    assert.deepEqual(Object.keys(body.data), ['markdown', 'links', 'metadata']);
    assert.deepEqual(body.data.links, [`${server.origin}/b`]);
    assert.equal(body.data.metadata.title, 'A');
  });

  it('prints JSON lines for several URLs, an error line for a failure, and exits with its code', async () => {
    const result = await run(['scrape', `${server.origin}/a`, 'http://127.0.0.1:1/x', `${server.origin}/b`, '--json']);
    assert.equal(result.code, 1);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((l) => l.success), [true, false, true]);
    assert.equal(lines[0].data.metadata.title, 'A');
    assert.deepEqual({ url: lines[1].url, code: lines[1].code }, { url: 'http://127.0.0.1:1/x', code: 'SCRAPE_CONNECTION_FAILED' });
    assert.equal(lines[2].data.metadata.title, 'B');
  });

  it('prints other formats when markdown is not asked for', async () => {
    const result = await run(['scrape', `${server.origin}/a`, '--format', 'links']);
    assert.equal(result.stdout, `${server.origin}/b\n`);
  });

  it('-o writes a file for one URL and a directory of files for several', async () => {
    const dir = tempDir();
    assert.equal((await run(['scrape', `${server.origin}/a`, '-o', join(dir, 'a.md')])).code, 0);
    assert.equal(readFileSync(join(dir, 'a.md'), 'utf8'), `# Page A\n\nAlpha [b](${server.origin}/b)\n`);
    const out = join(dir, 'pages');
    assert.equal((await run(['scrape', `${server.origin}/a`, `${server.origin}/b`, '-o', out, '--json'])).code, 0);
    assert.deepEqual(readdirSync(out).sort(), ['127.0.0.1_a.json', '127.0.0.1_b.json']);
    assert.equal(JSON.parse(readFileSync(join(out, '127.0.0.1_b.json'), 'utf8')).data.metadata.title, 'B');
  });

  it('takes --options from YAML and lets flags win', async () => {
    const dir = writeFiles({ 'opts.yaml': 'formats: [rawHtml]\nheaders:\n  X-Token: ${TOKEN}\nlocation: {country: FR}\n' });
    const result = await run(['scrape', `${server.origin}/echo`, '--options', join(dir, 'opts.yaml'), '--language', 'it'], { env: { TOKEN: 't0k' } });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, 't0k|it\n');
  });

  it('reports invalid --options with file, line, column, field and rule, exit 2', async () => {
    const dir = writeFiles({ 'opts.yaml': 'formats: [markdwn]\ntimeout: 10\nonlyMainContnt: true\n' });
    const result = await run(['scrape', `${server.origin}/a`, '--options', join(dir, 'opts.yaml')]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    const file = join(dir, 'opts.yaml');
    assert.match(result.stderr, new RegExp(`${file}:1:11  formats\\[0\\]  must be one of markdown, .*\\(did you mean "markdown"\\?\\)`));
    assert.match(result.stderr, new RegExp(`${file}:2:10  timeout  must be at least 1000 \\(got 10\\)`));
    assert.match(result.stderr, new RegExp(`${file}:3:1  onlyMainContnt  unknown field "onlyMainContnt" \\(did you mean "onlyMainContent"\\?\\)`));
  });

  it('checks flags with the same rules', async () => {
    const result = await run(['scrape', `${server.origin}/a`, '--timeout', '5', '--country', 'france', '--json']);
    assert.equal(result.code, 2);
    const body = JSON.parse(result.stdout);
    assert.equal(body.success, false);
    assert.deepEqual(body.details, ['timeout: must be at least 1000 (got 5)', 'location.country: must be a two-letter ISO 3166-1 country code in capitals, like US']);
  });

  it('fails with the 400 of the interface for an invalid URL, exit 2', async () => {
    const result = await run(['scrape', 'mailto:someone@example.com', '--json']);
    assert.equal(result.code, 2);
    assert.equal(JSON.parse(result.stdout).error, 'Invalid URL');
  });

  it('names what the local engine cannot do, exit 2', async () => {
    const result = await run(['scrape', `${server.origin}/a`, '--format', 'markdown,screenshot']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /cannot do the screenshot format \(needs a browser\)/);
  });

  it('keeps the cache in the engine home between runs', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const first = JSON.parse((await run(['scrape', `${server.origin}/b`, '--json'], { env })).stdout);
    const second = JSON.parse((await run(['scrape', `${server.origin}/b`, '--json'], { env })).stdout);
    assert.deepEqual([first.data.metadata.cacheState, second.data.metadata.cacheState], ['miss', 'hit']);
    const fresh = JSON.parse((await run(['scrape', `${server.origin}/b`, '--json', '--max-age', '0'], { env })).stdout);
    assert.equal(fresh.data.metadata.cacheState, 'miss');
    const lockdown = await run(['scrape', `${server.origin}/never`, '--lockdown', '--json'], { env });
    assert.equal(lockdown.code, 4);
    assert.equal(JSON.parse(lockdown.stdout).error, 'SCRAPE_LOCKDOWN_CACHE_MISS');
    assert.ok(!server.requests.some((r) => r.path === '/never'));
  });

  it('shows no spinner on a terminal that reports a width of 0, and ends', { timeout: 10_000 }, async () => {
    const result = await run(['scrape', `${server.origin}/a`], { tty: true, columns: 0, env: { NO_COLOR: '1' } });
    assert.equal(result.code, 0);
    assert.equal(result.stderr, 'scraping with the local engine\n');
  });

  it('says which engine acts, on a terminal only', async () => {
    const tty = await run(['scrape', `${server.origin}/a`], { tty: true, env: { NO_COLOR: '1' } });
    assert.match(tty.stderr, /scraping with the local engine/);
  });
});
