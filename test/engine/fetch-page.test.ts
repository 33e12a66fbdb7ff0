/** The fetcher against real servers on 127.0.0.1. */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { decodeBody } from '../../src/engine/fetch/decode.js';
import { fetchPage, MAX_REDIRECTS } from '../../src/engine/fetch/fetch-page.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { bytes, html, redirect, startSelfSignedServer, startServer, type TestServer } from '../helpers/server.js';

const basic = { timeoutMs: 5000, headers: {}, skipTlsVerification: true };

async function failure(promise: Promise<unknown>): Promise<WebwatchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WebwatchError, `expected a WebwatchError, got ${error}`);
    return error;
  }
  assert.fail('expected a failure');
}

describe('fetchPage', () => {
  let server: TestServer;
  before(async () => {
    const loop: Record<string, ReturnType<typeof redirect>> = {};
    for (let i = 0; i <= MAX_REDIRECTS + 1; i++) loop[`/hop${i}`] = redirect(`/hop${i + 1}`);
    server = await startServer({
      '/': html('<title>Home</title>'),
      '/moved': redirect('/final', 301),
      '/final': html('<title>Final</title>'),
      '/gone': (_q, r) => void r.writeHead(404, { 'content-type': 'text/html' }).end('<title>Gone</title>'),
      '/loop-a': redirect('/loop-b'),
      '/loop-b': redirect('/loop-a'),
      ...loop,
      '/slow': (_q, r) => void setTimeout(() => r.writeHead(200).end('late'), 3000),
      // The headers and a first chunk at once, then nothing for 3 s.
      '/stall': (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' }).write('<p>first');
        setTimeout(() => r.end('</p>'), 3000);
      },
      '/gzip': bytes(gzipSync('<p>gzipped</p>'), { 'content-type': 'text/html', 'content-encoding': 'gzip' }),
      '/br': bytes(brotliCompressSync('<p>brotli</p>'), { 'content-type': 'text/html', 'content-encoding': 'br' }),
      '/bad-gzip': bytes(Buffer.from('not gzip at all'), { 'content-type': 'text/html', 'content-encoding': 'gzip' }),
      '/big': bytes(Buffer.alloc(2048, 'a'), { 'content-type': 'text/plain' }),
      '/bomb': bytes(gzipSync(Buffer.alloc(5 * 1024 * 1024)), { 'content-type': 'text/html', 'content-encoding': 'gzip' }),
      '/echo': (request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request.headers)),
    });
  });
  after(() => server.close());

  it('follows redirects and reports the final URL and the hops', async () => {
    const page = await fetchPage({ ...basic, url: `${server.origin}/moved` });
    assert.equal(page.statusCode, 200);
    assert.equal(page.requestedUrl, `${server.origin}/moved`);
    assert.equal(page.finalUrl, `${server.origin}/final`);
    assert.deepEqual(page.redirects, [`${server.origin}/final`]);
    assert.equal(page.body.toString(), '<title>Final</title>');
  });

  it('keeps a 404 page as a page', async () => {
    const page = await fetchPage({ ...basic, url: `${server.origin}/gone` });
    assert.equal(page.statusCode, 404);
    assert.equal(page.body.toString(), '<title>Gone</title>');
  });

  it('names redirect loops and too many redirects', async () => {
    const loop = await failure(fetchPage({ ...basic, url: `${server.origin}/loop-a` }));
    assert.equal(loop.code, 'SCRAPE_REDIRECT_LOOP');
    assert.match(loop.message, /redirect loop: .*\/loop-a -> .*\/loop-b -> .*\/loop-a/);
    const many = await failure(fetchPage({ ...basic, url: `${server.origin}/hop0` }));
    assert.equal(many.code, 'SCRAPE_TOO_MANY_REDIRECTS');
  });

  it('times out as 408 Request Timeout', async () => {
    const started = Date.now();
    const error = await failure(fetchPage({ ...basic, url: `${server.origin}/slow`, timeoutMs: 300 }));
    assert.equal(error.status, 408);
    assert.equal(error.message, 'Request Timeout');
    assert.equal(error.exitCode, 7);
    assert.ok(Date.now() - started < 2500);
  });

  it("times out while the body is still coming, and is cancelled by the caller's signal at any point", async () => {
    const stalled = await failure(fetchPage({ ...basic, url: `${server.origin}/stall`, timeoutMs: 300 }));
    assert.equal(stalled.status, 408);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const cancelled = await failure(fetchPage({ ...basic, url: `${server.origin}/stall`, signal: controller.signal }));
    assert.equal(cancelled.code, 'SCRAPE_CANCELLED');
    assert.ok(Date.now() - started < 2500);
    assert.equal((await failure(fetchPage({ ...basic, url: `${server.origin}/`, signal: AbortSignal.abort() }))).code, 'SCRAPE_CANCELLED');
  });

  it('after a fetch stopped half-way, the next ones to the same server go through on sound connections', async () => {
    const stalled = await failure(fetchPage({ ...basic, url: `${server.origin}/stall`, timeoutMs: 200 }));
    assert.equal(stalled.status, 408);
    const pages = await Promise.all([1, 2, 3].map(() => fetchPage({ ...basic, url: `${server.origin}/gone` })));
    assert.deepEqual(
      pages.map((page) => [page.statusCode, page.body.toString()]),
      Array(3).fill([404, '<title>Gone</title>']),
    );
  });

  it("leaves no listener on the caller's signal once done", async () => {
    const controller = new AbortController();
    await fetchPage({ ...basic, url: `${server.origin}/`, signal: controller.signal });
    await failure(fetchPage({ ...basic, url: `${server.origin}/gone-host`, signal: controller.signal, maxBytes: 1 }));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('decompresses gzip and brotli, and refuses corrupt or oversized bodies', async () => {
    assert.equal((await fetchPage({ ...basic, url: `${server.origin}/gzip` })).body.toString(), '<p>gzipped</p>');
    assert.equal((await fetchPage({ ...basic, url: `${server.origin}/br` })).body.toString(), '<p>brotli</p>');
    assert.equal((await failure(fetchPage({ ...basic, url: `${server.origin}/bad-gzip` }))).code, 'SCRAPE_DECODING_ERROR');
    assert.equal((await failure(fetchPage({ ...basic, url: `${server.origin}/big`, maxBytes: 1024 }))).code, 'SCRAPE_RESPONSE_TOO_LARGE');
    // The limit applies after decompression: a small gzip bomb is stopped.
    assert.equal((await failure(fetchPage({ ...basic, url: `${server.origin}/bomb`, maxBytes: 1024 * 1024 }))).code, 'SCRAPE_RESPONSE_TOO_LARGE');
  });

  it('sends the given headers', async () => {
    const page = await fetchPage({ ...basic, url: `${server.origin}/echo`, headers: { 'x-test': 'yes', 'user-agent': 'ua/1' } });
    const seen = JSON.parse(page.body.toString());
    assert.equal(seen['x-test'], 'yes');
    assert.equal(seen['user-agent'], 'ua/1');
    assert.match(seen['accept-encoding'], /gzip/);
  });

  it('refuses non-http(s) and malformed URLs as 400 Invalid URL', async () => {
    for (const url of ['ftp://example.com/x', 'not a url', 'file:///etc/passwd', 'javascript:alert(1)']) {
      const error = await failure(fetchPage({ ...basic, url }));
      assert.equal(error.status, 400);
      assert.equal(error.message, 'Invalid URL');
    }
  });

  it('names DNS failures and refused connections', async () => {
    const dns = await failure(fetchPage({ ...basic, url: 'http://no-such-host.invalid/' }));
    assert.equal(dns.code, 'SCRAPE_DNS_RESOLUTION_ERROR');
    assert.equal(dns.message, 'could not resolve host no-such-host.invalid');
    const closed = await startServer({});
    const origin = closed.origin;
    await closed.close();
    const refused = await failure(fetchPage({ ...basic, url: `${origin}/` }));
    assert.equal(refused.code, 'SCRAPE_CONNECTION_FAILED');
  });

  it('checks every redirect target with the URL policy', async () => {
    const seen: string[] = [];
    const error = await failure(
      fetchPage({
        ...basic,
        url: `${server.origin}/moved`,
        checkUrl: (url) => {
          seen.push(url.pathname);
          if (url.pathname === '/final') throw new WebwatchError('blocked', { status: 403 });
        },
      }),
    );
    assert.equal(error.status, 403);
    assert.deepEqual(seen, ['/moved', '/final']);
  });
});

describe('fetchPage over TLS', () => {
  let origin: string;
  let close: () => void;
  before(async () => {
    ({ origin, close } = await startSelfSignedServer((_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>secure</title>')));
  });
  after(() => close());

  it('skips verification by default (spec default skipTlsVerification: true)', async () => {
    assert.equal((await fetchPage({ ...basic, url: `${origin}/` })).body.toString(), '<title>secure</title>');
  });

  it('rejects a self-signed certificate when verification is on', async () => {
    const error = await failure(fetchPage({ ...basic, skipTlsVerification: false, url: `${origin}/` }));
    assert.equal(error.code, 'SCRAPE_TLS_ERROR');
    assert.match(error.message, /skipTlsVerification/);
  });
});

describe('decodeBody', () => {
  const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]); // "café €" in windows-1252

  it('uses the header charset', () => {
    assert.equal(decodeBody(latin1, 'text/html; charset=windows-1252', true).text, 'café €');
    assert.equal(decodeBody(Buffer.from([0xa9, 0xb9]), 'text/plain; charset=iso-8859-2', false).text, 'Šš');
  });

  it('finds <meta charset> and http-equiv declarations', () => {
    const sjis = Buffer.concat([Buffer.from('<meta charset="Shift_JIS"><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b])]);
    assert.equal(decodeBody(sjis, 'text/html', true).text, '<meta charset="Shift_JIS"><p>日本');
    const equiv = Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>'), Buffer.from([0xe9])]);
    assert.match(decodeBody(equiv, undefined, true).text, /<p>é$/);
  });

  it('guesses UTF-8 for valid UTF-8 and windows-1252 otherwise when nothing is declared', () => {
    assert.equal(decodeBody(Buffer.from('<p>naïve – ok</p>'), 'text/html', true).text, '<p>naïve – ok</p>');
    assert.equal(decodeBody(latin1, 'text/html', true).encoding, 'windows-1252');
  });

  it('honours a byte-order mark over everything', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>é</p>')]);
    assert.equal(decodeBody(bom, 'text/html; charset=windows-1252', true).text, '<p>é</p>');
  });
});

describe('connect-time address rule', () => {
  it('refuses a name that resolves to loopback when the socket connects, without any URL check', async () => {
    const server = await startServer({}, (_q, r) => void r.writeHead(200).end('private'));
    const url = server.origin.replace('127.0.0.1', 'localhost');
    await assert.rejects(
      fetchPage({ url, timeoutMs: 5000, headers: {}, skipTlsVerification: true, publicAddressesOnly: true }),
      (error: Error & { status?: number; details?: { address?: string } }) => error.status === 403 && /^(127\.0\.0\.1|::1)$/.test(error.details?.address ?? ''),
    );
    assert.equal(server.requests.length, 0, 'nothing reached the server');
    const allowed = await fetchPage({ url, timeoutMs: 5000, headers: {}, skipTlsVerification: true });
    assert.equal(allowed.body.toString(), 'private');
    await server.close();
  });
});
