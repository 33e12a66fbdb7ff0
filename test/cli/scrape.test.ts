/** `webwatch scrape` in-process against a local site. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));

/** bin/webwatch.js on a pseudo-terminal (`script` gives it one: stdout and stderr both reach it), or piped. */
function spawnWebwatch(args: string[], env: Record<string, string>, terminal: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word}'`).join(' ');
  const child = terminal
    ? spawn('script', ['-qec', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // A command that hangs on the terminal fails the test instead of the whole run.
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('webwatch scrape', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      '/a': html('<title>A</title><main><h1>Page A</h1><p>Alpha <a href="/b">b</a></p></main>'),
      '/b': html('<title>B</title><main><h1>Page B</h1></main>'),
      '/logo.png': (_q, r) => void r.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
      '/echo': (request, response) =>
        void response.writeHead(200, { 'content-type': 'text/plain' }).end(`${request.headers['x-token']}|${request.headers['accept-language']}`),
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
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((l) => l.success),
      [true, false, true],
    );
    assert.equal(lines[0].data.metadata.title, 'A');
    assert.deepEqual({ url: lines[1].url, code: lines[1].code }, { url: 'http://127.0.0.1:1/x', code: 'SCRAPE_CONNECTION_FAILED' });
    assert.equal(lines[2].data.metadata.title, 'B');
  });

  it('prints other formats when markdown is not asked for', async () => {
    const result = await run(['scrape', `${server.origin}/a`, '--format', 'links']);
    assert.equal(result.stdout, `${server.origin}/b\n`);
  });

  it('prints every format asked for, each under a heading, in the order asked', async () => {
    const result = await run(['scrape', `${server.origin}/a`, '--format', 'links,markdown']);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `<!-- links -->\n\n${server.origin}/b\n\n<!-- markdown -->\n\n# Page A\n\nAlpha [b](${server.origin}/b)\n`);
    assert.equal(result.stderr, '');
    const tty = await run(['scrape', `${server.origin}/a`, '-f', 'markdown,links', '-f', 'images'], { tty: true, env: { NO_COLOR: '1', CI: '1' } });
    assert.equal(
      tty.stdout,
      `<!-- markdown -->\n\n# Page A\n\nAlpha [b](${server.origin}/b)\n\n<!-- links -->\n\n${server.origin}/b\n\n<!-- images -->\n`,
      'an empty format is its heading alone',
    );
  });

  it('names the URL in each heading when there are several', async () => {
    const result = await run(['scrape', `${server.origin}/a`, `${server.origin}/b`, '--format', 'markdown,links']);
    assert.equal(
      result.stdout,
      `${[
        `<!-- markdown of ${server.origin}/a -->`,
        `# Page A\n\nAlpha [b](${server.origin}/b)`,
        `<!-- links of ${server.origin}/a -->`,
        `${server.origin}/b`,
        `<!-- markdown of ${server.origin}/b -->`,
        '# Page B',
        `<!-- links of ${server.origin}/b -->`,
      ].join('\n\n')}\n`,
    );
  });

  it('leaves rawBase64 out of text with other formats, and says how to get it', async () => {
    const result = await run(['scrape', `${server.origin}/b`, '--format', 'markdown,rawBase64']);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '<!-- markdown -->\n\n# Page B\n');
    assert.match(result.stderr, /^rawBase64 is not printed with other formats: --json includes it, -o <directory> writes the file itself$/m);
    assert.equal((await run(['scrape', `${server.origin}/b`, '--format', 'markdown,rawBase64', '--quiet'])).stderr, '');
    // Alone, it is printed as it always was.
    const alone = await run(['scrape', `${server.origin}/b`, '--format', 'rawBase64']);
    assert.equal(Buffer.from(alone.stdout.trim(), 'base64').toString(), '<title>B</title><main><h1>Page B</h1></main>');
  });

  it('-o <file> holds what would be printed', async () => {
    const file = join(tempDir(), 'a.txt');
    assert.equal((await run(['scrape', `${server.origin}/a`, '-f', 'markdown,links', '-o', file])).code, 0);
    assert.equal(readFileSync(file, 'utf8'), `<!-- markdown -->\n\n# Page A\n\nAlpha [b](${server.origin}/b)\n\n<!-- links -->\n\n${server.origin}/b\n`);
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

  it('-o <existing directory> writes into it, named after the URL, and says what it wrote', async () => {
    const dir = tempDir();
    const result = await run(['scrape', `${server.origin}/a`, '-o', dir]);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '');
    assert.deepEqual(readdirSync(dir), ['127.0.0.1_a.md']);
    assert.equal(readFileSync(join(dir, '127.0.0.1_a.md'), 'utf8'), `# Page A\n\nAlpha [b](${server.origin}/b)\n`);
    assert.equal(result.stderr, `wrote ${join(dir, '127.0.0.1_a.md')}\n`);
    assert.equal((await run(['scrape', `${server.origin}/a`, '-o', dir, '--quiet'])).stderr, '');
    // A name ending in a slash is a directory, made when missing.
    const fresh = join(tempDir(), 'new', 'pages/');
    assert.equal((await run(['scrape', `${server.origin}/b`, '-o', fresh, '--json'])).code, 0);
    assert.equal(JSON.parse(readFileSync(join(fresh, '127.0.0.1_b.json'), 'utf8')).data.metadata.title, 'B');
  });

  it('-o <directory> writes one file per format, bytes as the bytes they are', async () => {
    const dir = tempDir();
    const result = await run(['scrape', `${server.origin}/a`, '-f', 'markdown,links,html', '-o', dir]);
    assert.equal(result.code, 0);
    assert.deepEqual(readdirSync(dir).sort(), ['127.0.0.1_a.html', '127.0.0.1_a.links.txt', '127.0.0.1_a.md']);
    assert.equal(readFileSync(join(dir, '127.0.0.1_a.links.txt'), 'utf8'), `${server.origin}/b\n`);
    assert.equal(result.stderr, `wrote ${['127.0.0.1_a.md', '127.0.0.1_a.links.txt', '127.0.0.1_a.html'].map((name) => join(dir, name)).join(', ')}\n`);
    const image = await run(['scrape', `${server.origin}/logo.png`, '-f', 'markdown,rawBase64', '-o', dir]);
    assert.equal(image.code, 0);
    assert.deepEqual(readFileSync(join(dir, '127.0.0.1_logo.png')), PNG, 'named by its content type, the extension not doubled');
    assert.ok(readdirSync(dir).includes('127.0.0.1_logo.png.md'));
    // Printed with other formats, the bytes are left out; stderr says how to get them.
    assert.match(
      (await run(['scrape', `${server.origin}/logo.png`, '-f', 'markdown,rawBase64'])).stderr,
      /rawBase64 is not printed with other formats: --json includes it, -o <directory> writes the file itself/,
    );
  });

  it('-o with several URLs: one file each, names kept apart, and a file in the way is a usage error', async () => {
    const dir = tempDir();
    const result = await run(['scrape', `${server.origin}/a`, `${server.origin}/a/`, `${server.origin}/b`, '-o', dir]);
    assert.equal(result.code, 0);
    assert.deepEqual(readdirSync(dir).sort(), ['127.0.0.1_a-2.md', '127.0.0.1_a.md', '127.0.0.1_b.md']);
    assert.equal(result.stderr, `wrote 3 files into ${dir}\n`);
    const file = join(tempDir(), 'taken');
    writeFileSync(file, 'mine');
    const requests = server.requests.length;
    const refused = await run(['scrape', `${server.origin}/a`, `${server.origin}/b`, '-o', file]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /-o .*taken: a file is in the way; give a directory/);
    assert.equal(readFileSync(file, 'utf8'), 'mine');
    assert.equal(server.requests.length, requests, 'refused before anything was fetched');
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
    assert.deepEqual(body.details, [
      'timeout: must be at least 1000 (got 5)',
      'location.country: must be a two-letter ISO 3166-1 country code in capitals, like US',
    ]);
  });

  it('fails with the 400 of the interface for an invalid URL, exit 2', async () => {
    const result = await run(['scrape', 'mailto:someone@example.com', '--json']);
    assert.equal(result.code, 2);
    assert.equal(JSON.parse(result.stdout).error, 'Invalid URL');
  });

  it('says why a page gives no audio, exit 2', async () => {
    const result = await run(['scrape', `${server.origin}/a`, '--format', 'markdown,audio']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no video or audio found at http:\/\/127\.0\.0\.1:\d+\/a/);
    assert.match(result.stderr, /its page declares no video \(<video>, og:video, a JSON-LD VideoObject\)/);
  });

  it('a model format with no model configured says how to configure one, exit 2, before fetching', async () => {
    const before = server.requests.length;
    const result = await run(['scrape', `${server.origin}/a`, '--format', 'summary']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /the summary format needs a language model, and none is configured: set llm\.baseUrl and llm\.model in the config/);
    assert.equal(server.requests.length, before);
  });

  it('fetches anew by default, and keeps the cache in the engine home between runs for --max-age', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const asked = () => server.requests.filter((r) => r.path === '/b').length;
    const before = asked();
    const first = JSON.parse((await run(['scrape', `${server.origin}/b`, '--json'], { env })).stdout);
    const again = JSON.parse((await run(['scrape', `${server.origin}/b`, '--json'], { env })).stdout);
    assert.equal(asked() - before, 2, 'a scrape from the command line fetches the page each time');
    assert.equal('cacheState' in first.data.metadata || 'cacheState' in again.data.metadata, false, 'as maxAge 0: the cache is not read');
    const cached = JSON.parse((await run(['scrape', `${server.origin}/b`, '--json', '--max-age', '60000'], { env })).stdout);
    assert.equal(cached.data.metadata.cacheState, 'hit', 'but it is written, for a later --max-age');
    assert.equal(asked() - before, 2);
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

describe('webwatch scrape answered from the cache', () => {
  let server: TestServer;
  let api: TestServer;
  before(async () => {
    server = await startServer({
      '/a': html('<title>A</title><main><h1>Page A</h1></main>'),
      '/b': html('<title>B</title><main><h1>Page B</h1></main>'),
    });
    // A v2 API whose documents come from its cache, one saying when it was cached and one not.
    api = await startServer({
      '/v2/scrape': (_q, r) => {
        const dated = api.requests.filter((q) => q.path === '/v2/scrape').length === 1;
        const metadata = {
          sourceURL: 'https://a.example/',
          url: 'https://a.example/',
          statusCode: 200,
          scrapeId: 's1',
          cacheState: 'hit',
          ...(dated && { cachedAt: '2026-11-21T10:30:00.000Z' }),
          creditsUsed: 1,
        };
        r.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { markdown: '# Remote', metadata } }));
      },
    });
  });
  after(async () => {
    await server.close();
    await api.close();
  });

  // CI keeps the spinner off the fake terminal; the note does not depend on it.
  const cached = new Date('2026-11-21T12:00:00Z');
  const later = new Date(cached.getTime() + 3 * 60_000 + 20_000);

  const HOUR = ['--max-age', '3600000'];

  it('says so on a terminal, with its age and how to fetch anew; never on stdout', async () => {
    const env = { WEBWATCH_HOME: tempDir(), NO_COLOR: '1', CI: '1' };
    const first = await run(['scrape', `${server.origin}/a`, ...HOUR], { env, tty: true, now: cached });
    assert.doesNotMatch(first.stderr, /cache/);
    const hit = await run(['scrape', `${server.origin}/a`, ...HOUR], { env, tty: true, now: later });
    assert.equal(hit.code, 0);
    assert.equal(hit.stdout, '# Page A\n');
    assert.match(hit.stderr, /^from cache, 3 min old; --max-age 0 fetches anew$/m);
    // Asked for the cache only: nothing to suggest.
    const lockdown = await run(['scrape', `${server.origin}/a`, '--lockdown'], { env, tty: true, now: later });
    assert.match(lockdown.stderr, /^from cache, 3 min old$/m);
    const fresh = await run(['scrape', `${server.origin}/a`], { env, tty: true, now: later });
    assert.doesNotMatch(fresh.stderr, /cache/);
    assert.doesNotMatch((await run(['scrape', `${server.origin}/a`, ...HOUR, '--quiet'], { env, tty: true, now: later })).stderr, /cache/);
  });

  it('counts the pages from the cache when there are several', async () => {
    const env = { WEBWATCH_HOME: tempDir(), NO_COLOR: '1', CI: '1' };
    await run(['scrape', `${server.origin}/a`], { env, now: cached });
    const both = await run(['scrape', `${server.origin}/a`, `${server.origin}/b`, ...HOUR], { env, tty: true, now: later });
    assert.match(both.stderr, /^1 of 2 pages from cache, up to 3 min old; --max-age 0 fetches anew$/m);
  });

  it('says so on stderr when piped too (a stale answer in `scrape | grep`); --json keeps it to the document', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    await run(['scrape', `${server.origin}/a`], { env, now: cached });
    const piped = await run(['scrape', `${server.origin}/a`, ...HOUR], { env, now: later });
    assert.deepEqual([piped.stdout, piped.stderr], ['# Page A\n', 'from cache, 3 min old; --max-age 0 fetches anew\n']);
    const json = await run(['scrape', `${server.origin}/a`, '--json', ...HOUR], { env, now: later });
    assert.equal(json.stderr, '');
    const { metadata } = JSON.parse(json.stdout).data;
    assert.deepEqual([metadata.cacheState, metadata.cachedAt], ['hit', cached.toISOString()]);
  });

  it("reads the same marks in an API's documents", async () => {
    const env = { WEBWATCH_API_URL: `${api.origin}/v2`, WEBWATCH_API_KEY: 'ww_key_of_the_fake_api', NO_COLOR: '1', CI: '1' };
    const dated = await run(['scrape', 'https://a.example/'], { env, tty: true, now: cached });
    assert.equal(dated.stdout, '# Remote\n');
    assert.match(dated.stderr, /^from cache, 1 h old; --max-age 0 fetches anew$/m);
    const undated = await run(['scrape', 'https://a.example/'], { env, tty: true, now: cached });
    assert.match(undated.stderr, /^from cache; --max-age 0 fetches anew$/m);
  });

  it('on a real terminal and piped, from the command itself', { skip: process.platform !== 'linux' }, async () => {
    const env = { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), NO_COLOR: '1' };
    const url = `${server.origin}/b`;
    const miss = await spawnWebwatch(['scrape', url, ...HOUR], env, true);
    assert.equal(miss.code, 0, miss.stdout);
    assert.doesNotMatch(miss.stdout, /from cache/);
    const hit = await spawnWebwatch(['scrape', url, ...HOUR], env, true);
    assert.match(hit.stdout, /# Page B/);
    assert.match(hit.stdout, /from cache, under a minute old; --max-age 0 fetches anew/);
    const piped = await spawnWebwatch(['scrape', url, ...HOUR], env, false);
    assert.deepEqual([piped.code, piped.stdout, piped.stderr], [0, '# Page B\n', 'from cache, under a minute old; --max-age 0 fetches anew\n']);
  });
});

describe('webwatch scrape: the browser flags', () => {
  let api: TestServer;
  const bodies: Record<string, unknown>[] = [];
  before(async () => {
    // A v2 API that keeps what it was asked: the flags arrive as the interface's scrape options.
    api = await startServer({
      '/v2/scrape': (q, r) => {
        let text = '';
        q.on('data', (chunk: Buffer) => (text += chunk.toString()));
        q.on('end', () => {
          bodies.push(JSON.parse(text) as Record<string, unknown>);
          const metadata = { sourceURL: 'https://a.example/', url: 'https://a.example/', statusCode: 200, scrapeId: 's1', creditsUsed: 1 };
          r.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { markdown: '# Remote', metadata } }));
        });
      },
    });
  });
  after(() => api.close());
  const env = () => ({ WEBWATCH_API_URL: `${api.origin}/v2`, WEBWATCH_API_KEY: 'ww_key_of_the_fake_api' });

  it('--wait-for, --no-block-ads, --profile and --profile-read-only become waitFor, blockAds and profile', async () => {
    const result = await run(['scrape', 'https://a.example/', '--wait-for', '1500', '--no-block-ads', '--profile', 'shop', '--profile-read-only'], {
      env: env(),
    });
    assert.equal(result.code, 0, result.stderr);
    const sent = bodies.at(-1)!;
    assert.deepEqual([sent.waitFor, sent.blockAds, sent.profile], [1500, false, { name: 'shop', saveChanges: false }]);
  });

  it('--profile alone saves the profile back, and no flag sends none of them', async () => {
    assert.equal((await run(['scrape', 'https://a.example/', '--profile', 'shop', '--block-ads'], { env: env() })).code, 0);
    assert.deepEqual([bodies.at(-1)!.profile, bodies.at(-1)!.blockAds], [{ name: 'shop' }, true]);
    assert.equal((await run(['scrape', 'https://a.example/'], { env: env() })).code, 0);
    assert.deepEqual(
      ['waitFor', 'blockAds', 'profile'].filter((name) => name in bodies.at(-1)!),
      [],
    );
  });

  it('--profile-read-only without a profile, and a negative wait, are usage errors sent nowhere', async () => {
    const before = bodies.length;
    const readOnly = await run(['scrape', 'https://a.example/', '--profile-read-only'], { env: env() });
    assert.equal(readOnly.code, 2);
    assert.equal(readOnly.stderr.split('\n')[0], 'error: --profile-read-only needs a profile: give --profile NAME (or profile in --options)');
    const negative = await run(['scrape', 'https://a.example/', '--wait-for', '-5'], { env: env() });
    assert.equal(negative.code, 2);
    assert.equal(negative.stderr.split('\n')[0], 'error: invalid scrape options: waitFor: must be at least 0 (got -5)');
    assert.equal(bodies.length, before);
  });

  it('a wait longer than half of the timeout (--timeout, or the default) is a usage error sent nowhere', async () => {
    const before = bodies.length;
    const given = await run(['scrape', 'https://a.example/', '--wait-for', '8000', '--timeout', '15000'], { env: env() });
    assert.equal(given.code, 2);
    assert.match(
      given.stderr.split('\n')[0]!,
      /^error: invalid scrape options: waitFor: waitFor must not exceed half of timeout: 8000 ms is more than half of the timeout of 15000 ms/,
    );
    const unset = await run(['scrape', 'https://a.example/', '--wait-for', '40000'], { env: env() });
    assert.equal(unset.code, 2);
    assert.match(unset.stderr.split('\n')[0]!, /half of the default timeout of 60000 ms, which applies as timeout is not given/);
    assert.equal(bodies.length, before);
    assert.equal((await run(['scrape', 'https://a.example/', '--wait-for', '40000', '--timeout', '80000'], { env: env() })).code, 0);
  });
});
