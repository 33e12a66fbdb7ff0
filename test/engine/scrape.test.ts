/** The scrape function end to end against pages served on 127.0.0.1. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scrape, scrapeUnlessUnchanged } from '../../src/engine/scrape/scrape.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import type { WebwatchError } from '../../src/errors/webwatch-error.js';
import { bytes, html, redirect, startServer, type TestServer } from '../helpers/server.js';

const ARTICLE = `<!doctype html><html lang="en-GB"><head>
<title>Pricing | Example Co</title>
<meta name="description" content="Plans and prices">
<meta name="keywords" content="pricing, plans">
<meta name="robots" content="index, follow">
<meta property="og:title" content="Pricing">
<meta property="og:image" content="/og.png">
<meta property="og:site_name" content="Example Co">
<meta property="og:locale:alternate" content="de_DE"><meta property="og:locale:alternate" content="fr_FR">
<meta name="DC.creator" content="Ada">
<meta property="article:published_time" content="2026-01-02T03:04:05Z">
<link rel="canonical" href="/pricing">
<link rel="icon" href="/favicon.png">
<style>.x{color:red}</style><script>var secret = 1;</script>
</head><body>
<header class="site-header"><nav><a href="/">Home</a><a href="/about">About</a></nav></header>
<div class="cookie-banner">We use cookies</div>
<main><article>
<h1>Plans</h1>
<p>The <strong>Pro</strong> plan costs <a href="/pro">$10</a>. <a href="/pro">Again</a> <a href="https://other.example/x">Other</a></p>
<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>$10</td></tr></table>
<pre><code class="language-js">const price = 10;</code></pre>
<img src="/img/chart.png" alt="Chart"><img src="data:image/png;base64,iVBORw0KGgo=" alt="Inline pixel">
<div class="share-buttons"><a href="https://social.example/share">Share</a></div>
<noscript>Enable JS</noscript>
</article></main>
<aside class="sidebar">Related: other things</aside>
<ins class="adsbygoogle">AD</ins>
<footer>© Example Co</footer>
</body></html>`;

describe('scrape (local engine)', () => {
  let server: TestServer;
  const context = { version: '9.9.9', now: () => new Date() };
  const at = (path: string, options: ScrapeOptions = {}) => scrape({ url: `${server.origin}${path}`, options }, context);

  before(async () => {
    server = await startServer({
      '/article': html(ARTICLE),
      '/old': redirect('/article', 301),
      '/latin': bytes(
        Buffer.concat([
          Buffer.from('<html><head><title>Caf'),
          Buffer.from([0xe9]),
          Buffer.from('</title></head><body><p>'),
          Buffer.from([0x93]),
          Buffer.from('quoted'),
          Buffer.from([0x94, 0x20, 0x80]),
          Buffer.from('</p></body></html>'),
        ]),
        { 'content-type': 'text/html; charset=windows-1252' },
      ),
      '/sjis': bytes(
        Buffer.concat([
          Buffer.from('<html><head><meta charset="shift_jis"><title>'),
          Buffer.from([0x93, 0xfa, 0x96, 0x7b]),
          Buffer.from('</title></head><body><p>ok</p></body></html>'),
        ]),
        { 'content-type': 'text/html' },
      ),
      '/data.json': bytes(Buffer.from('{"a":1,"b":[true]}'), { 'content-type': 'application/json' }),
      '/notes.txt': bytes(Buffer.from('plain *text*'), { 'content-type': 'text/plain; charset=utf-8' }),
      '/pic.png': bytes(Buffer.from([0x89, 0x50, 0x4e, 0x47]), { 'content-type': 'image/png' }),
      '/contact': html('<p>Mail ann@example.com or call +44 20 7946 0958.</p>'),
      '/missing': (_q, r) => void r.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not here</title><p>Sorry</p>'),
      '/echo': (request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request.headers)),
    });
  });
  after(() => server.close());

  it('fingerprints the response for a check, which then learns the page is unchanged; not for a caller that does not want it', async () => {
    const request = { url: `${server.origin}/article`, options: {} };
    const first = await scrapeUnlessUnchanged(request, context, undefined);
    assert.ok('document' in first && typeof first.fingerprint === 'string' && first.fingerprint.length > 20);
    const again = await scrapeUnlessUnchanged(request, context, first.fingerprint);
    assert.ok('unchanged' in again, 'the same response is unchanged');
    assert.equal(again.unchanged.fingerprint, first.fingerprint);
    const other = await scrapeUnlessUnchanged({ ...request, url: `${server.origin}/contact` }, context, first.fingerprint);
    assert.ok('document' in other && other.fingerprint !== first.fingerprint);
    const unwanted = await scrapeUnlessUnchanged(request, context, undefined, { fingerprint: false });
    assert.ok('document' in unwanted && unwanted.fingerprint === null);
  });

  it('returns markdown of the main content only, by default', async () => {
    const { markdown } = await at('/article');
    assert.ok(markdown);
    assert.match(markdown, /^# Plans/m);
    assert.match(markdown, /The \*\*Pro\*\* plan costs \[\$10\]\(http:\/\/127\.0\.0\.1:\d+\/pro\)/);
    assert.match(markdown, /\| Plan \| Price \|\n\| --- \| --- \|\n\| Pro \| \$10 \|/);
    assert.match(markdown, /```js\nconst price = 10;\n```/);
    assert.match(markdown, /!\[Chart\]\(http:\/\/127\.0\.0\.1:\d+\/img\/chart\.png\)/);
    for (const gone of ['Home', 'cookies', 'Related', 'AD', '© Example', 'secret', 'Enable JS', 'color:red', 'Share']) {
      assert.ok(!markdown.includes(gone), `"${gone}" should have been filtered out`);
    }
  });

  it('keeps the whole page with onlyMainContent false, still without scripts', async () => {
    const { markdown } = await at('/article', { onlyMainContent: false, blockAds: false });
    for (const kept of ['Home', 'Related: other things', '© Example Co', 'AD']) assert.ok(markdown!.includes(kept), kept);
    assert.ok(!markdown!.includes('secret'));
  });

  it('includeTags and excludeTags take CSS selectors', async () => {
    const only = await at('/article', { includeTags: ['table', 'h1'], onlyMainContent: false });
    assert.equal(only.markdown, '# Plans\n\n| Plan | Price |\n| --- | --- |\n| Pro | $10 |');
    const without = await at('/article', { excludeTags: ['table', 'pre'] });
    assert.ok(!without.markdown!.includes('| Plan'));
    assert.ok(!without.markdown!.includes('const price'));
    assert.match(without.markdown!, /# Plans/);
  });

  it('replaces base64 images with a placeholder and keeps their alt text, unless told not to', async () => {
    assert.match((await at('/article')).markdown!, /!\[Inline pixel\]\(<Base64-Image-Removed>\)/);
    assert.match((await at('/article', { removeBase64Images: false })).markdown!, /!\[Inline pixel\]\(data:image\/png;base64,iVBORw0KGgo=\)/);
  });

  it('returns the other formats in the v2 document shape', async () => {
    const document = await at('/article', { formats: ['html', 'rawHtml', 'links', 'images', 'rawBase64'] });
    assert.equal(document.markdown, undefined);
    assert.ok(document.html!.includes('<h1>Plans</h1>') && !document.html!.includes('<script'));
    assert.equal(document.rawHtml, ARTICLE);
    assert.equal(Buffer.from(document.rawBase64!, 'base64').toString(), ARTICLE);
    const origin = server.origin;
    assert.deepEqual(document.links, [`${origin}/`, `${origin}/about`, `${origin}/pro`, 'https://other.example/x', 'https://social.example/share']);
    assert.deepEqual(document.images, [`${origin}/img/chart.png`]);
  });

  it('fills the metadata', async () => {
    const { metadata } = await at('/old');
    const origin = server.origin;
    assert.equal(metadata.title, 'Pricing'); // og:title before <title>, as a reader would say it
    assert.equal(metadata.description, 'Plans and prices');
    assert.equal(metadata.language, 'en-GB');
    assert.equal(metadata.keywords, 'pricing, plans');
    assert.equal(metadata.robots, 'index, follow');
    assert.equal(metadata.canonicalUrl, `${origin}/pricing`);
    assert.equal(metadata.favicon, `${origin}/favicon.png`);
    assert.equal(metadata.ogTitle, 'Pricing');
    assert.equal(metadata.ogImage, `${origin}/og.png`);
    assert.equal(metadata.ogSiteName, 'Example Co');
    assert.deepEqual(metadata.ogLocaleAlternate, ['de_DE', 'fr_FR']);
    assert.equal(metadata.dcCreator, 'Ada');
    assert.equal(metadata.publishedTime, '2026-01-02T03:04:05Z');
    assert.equal(metadata.sourceURL, `${origin}/old`);
    assert.equal(metadata.url, `${origin}/article`);
    assert.equal(metadata.statusCode, 200);
    assert.equal(metadata.contentType, 'text/html; charset=utf-8');
    assert.match(metadata.scrapeId, /^[0-9a-f-]{36}$/);
    assert.equal('cacheState' in metadata, false, 'no cache was read: this context has none');
    assert.equal(metadata.proxyUsed, 'basic');
    assert.equal(metadata.creditsUsed, 1);
  });

  it('keeps a 404 page as a document with its status', async () => {
    const document = await at('/missing');
    assert.equal(document.metadata.statusCode, 404);
    assert.equal(document.metadata.title, 'Not here');
    assert.equal(document.markdown, 'Sorry');
  });

  it('decodes windows-1252 and Shift_JIS pages', async () => {
    const latin = await at('/latin');
    assert.equal(latin.metadata.title, 'Café');
    assert.equal(latin.markdown, '“quoted” €');
    assert.equal((await at('/sjis')).metadata.title, '日本');
  });

  it('handles JSON, plain text and images as themselves', async () => {
    assert.equal((await at('/data.json')).markdown, '```json\n{\n  "a": 1,\n  "b": [\n    true\n  ]\n}\n```');
    assert.equal((await at('/notes.txt')).markdown, 'plain *text*');
    const image = await at('/pic.png', { formats: ['markdown', 'images'] });
    assert.equal(image.markdown, `![](${server.origin}/pic.png)`);
    assert.deepEqual(image.images, [`${server.origin}/pic.png`]);
  });

  it('sends a user agent, Accept-Language and the user headers', async () => {
    const seen = async (options: ScrapeOptions) => JSON.parse((await at('/echo', { ...options, formats: ['rawHtml'] })).rawHtml!);
    const plain = await seen({});
    assert.match(plain['user-agent'], /X11; Linux.* webwatch\/9\.9\.9$/);
    assert.equal(plain['accept-language'], 'en-US,en;q=0.9');
    // mobile goes through the browser, whose agent test/engine/browser.test.ts checks.
    assert.equal((await seen({ location: { country: 'DE' } }))['accept-language'], 'de-DE,de;q=0.9');
    assert.equal((await seen({ location: { languages: ['fr-CA', 'en'] } }))['accept-language'], 'fr-CA,fr;q=0.9,en;q=0.8');
    const custom = await seen({ headers: { 'User-Agent': 'mine/1', Cookie: 'a=b' } });
    assert.equal(custom['user-agent'], 'mine/1');
    assert.equal(custom.cookie, 'a=b');
  });

  it('redacts PII in the markdown only', async () => {
    const document = await at('/contact', { formats: ['markdown', 'rawHtml'], redactPII: { mode: 'fast', replaceStyle: 'tag' } });
    assert.equal(document.markdown, 'Mail <EMAIL> or call <PHONE>.');
    assert.match(document.rawHtml!, /ann@example\.com/);
    assert.equal((await at('/contact', { redactPII: true })).markdown, 'Mail <EMAIL> or call <PHONE>.');
  });

  it('says why it cannot keep media without a directory for files; a model format without a model says how to configure one', async () => {
    // This engine has no browser settings, and so no artifacts directory (test/engine/media.test.ts runs the formats).
    await assert.rejects(at('/article', { formats: ['markdown', 'audio', 'video'] }), (error: WebwatchError) => {
      assert.equal(error.status, 400);
      assert.equal(error.code, 'UNSUPPORTED_BY_LOCAL_ENGINE');
      assert.match(error.message, /^the video and audio formats are not available for this request: this engine has no directory for files/);
      return true;
    });
    await assert.rejects(at('/article', { formats: ['markdown', 'summary'] }), (error: WebwatchError) => {
      assert.equal(error.code, 'MODEL_NOT_CONFIGURED');
      assert.match(error.message, /^the summary format needs a language model, and none is configured: set llm\.baseUrl and llm\.model/);
      return true;
    });
    await assert.rejects(at('/article', { formats: [{ type: 'changeTracking', modes: ['json'] }] }), /changeTracking in json mode needs a language model/);
    assert.equal(server.requests.filter((r) => r.path === '/article').length > 0, true);
  });
});
