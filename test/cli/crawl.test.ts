/** `webwatch crawl` in-process against a small local site. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

describe('webwatch crawl', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      '/': html('<title>Home</title><main><p>Home <a href="/one">one</a> <a href="/two">two</a></p></main>'),
      '/one': html('<title>One</title><main><p>First</p></main>'),
      '/two': (_q, r) => void r.writeHead(404, { 'content-type': 'text/html' }).end('<title>Gone</title>'),
    });
  });
  after(() => server.close());

  it('prints url, status and title per page, tab-separated when piped', async () => {
    const result = await run(['crawl', server.url, '--sitemap', 'skip']);
    assert.equal(result.code, 0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'))
      .sort((a, b) => a[0]!.localeCompare(b[0]!));
    assert.deepEqual(rows, [
      [`${server.origin}/`, '200', 'Home'],
      [`${server.origin}/one`, '200', 'One'],
      [`${server.origin}/two`, '404', 'Gone'],
    ]);
    // The 404 is listed with its status, and counted as what it is: an error, not a page crawled.
    assert.match(result.stderr, /(^|\n)2 pages crawled, 1 error \(1 HTTP 404\)\n$/);
    const one = await run(['crawl', server.url, '--sitemap', 'skip', '--limit', '1']);
    assert.match(one.stderr, /(^|\n)1 page crawled, 0 errors\n$/);
  });

  it('on a terminal lines the pages up in columns under a header, as the other tables are', async () => {
    const result = await run(['crawl', server.url, '--sitemap', 'skip'], { tty: true, columns: 200, env: { NO_COLOR: '1' } });
    assert.equal(result.code, 0);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^url +code +title$/);
    assert.equal(lines.length, 4);
    assert.doesNotMatch(result.stdout, /\t/);
    // Every row's code and title start where the header's do.
    const codeAt = lines[0]!.indexOf('code');
    const titleAt = lines[0]!.indexOf('title');
    for (const line of lines.slice(1)) {
      assert.match(line.slice(codeAt), /^(200|404) /, line);
      assert.match(line.slice(titleAt), /^(Home|One|Gone)$/, line);
    }
  });

  it('a crawl whose every page answered an HTTP error fails (exit 1)', async () => {
    const result = await run(['crawl', `${server.origin}/two`, '--sitemap', 'skip']);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, `${server.origin}/two\t404\tGone\n`);
    assert.match(result.stderr, /(^|\n)0 pages crawled, 1 error \(1 HTTP 404\)\n$/);
  });

  it('--json prints one JSON document per page', async () => {
    const result = await run(['crawl', server.url, '--json', '--sitemap', 'skip', '--format', 'markdown,links']);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(lines.length, 3);
    assert.ok(lines.every((line) => line.success === true && typeof line.data.metadata.url === 'string'));
    const home = lines.find((line) => line.data.metadata.title === 'Home');
    assert.deepEqual(home.data.links, [`${server.origin}/one`, `${server.origin}/two`]);
  });

  it('-o writes one markdown file per page', async () => {
    const dir = join(tempDir(), 'site');
    assert.equal((await run(['crawl', server.url, '-o', dir, '--sitemap', 'skip', '--limit', '2'])).code, 0);
    const files = readdirSync(dir).sort();
    assert.equal(files.length, 2);
    assert.ok(files.includes('127.0.0.1.md'));
    assert.match(readFileSync(join(dir, '127.0.0.1.md'), 'utf8'), /^Home \[one\]/);
  });

  it('-o writes every format asked for, like scrape, and says how many files', async () => {
    const dir = tempDir(); // exists already
    const result = await run(['crawl', server.url, '-o', dir, '--sitemap', 'skip', '--format', 'markdown,links']);
    assert.equal(result.code, 0);
    assert.deepEqual(readdirSync(dir).sort(), [
      '127.0.0.1.links.txt',
      '127.0.0.1.md',
      '127.0.0.1_one.links.txt',
      '127.0.0.1_one.md',
      '127.0.0.1_two.links.txt',
      '127.0.0.1_two.md',
    ]);
    assert.equal(readFileSync(join(dir, '127.0.0.1.links.txt'), 'utf8'), `${server.origin}/one\n${server.origin}/two\n`);
    assert.match(result.stderr, new RegExp(`2 pages crawled, 1 error \\(1 HTTP 404\\); wrote 6 files into ${dir}\n$`));
  });

  it('-o naming a file is a usage error, before crawling', async () => {
    const file = join(tempDir(), 'taken');
    writeFileSync(file, 'mine');
    const requests = server.requests.length;
    const result = await run(['crawl', server.url, '-o', file, '--sitemap', 'skip']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /-o .*taken: a file is in the way; give a directory/);
    assert.equal(server.requests.length, requests);
  });

  it('checks crawl flags by the same rules as definition files', async () => {
    const result = await run(['crawl', server.url, '--limit', '0', '--include-path', '(', '--json']);
    assert.equal(result.code, 2);
    const body = JSON.parse(result.stdout);
    assert.equal(body.details[0], 'limit: must be at least 1 (got 0)');
    assert.match(body.details[1], /^includePaths\[0\]: is not a valid regular expression/);
  });

  it('exits 1 when not even the start page could be fetched', async () => {
    const result = await run(['crawl', 'http://127.0.0.1:1/', '--sitemap', 'skip', '--ignore-robots-txt']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /connection refused/);
  });
});
