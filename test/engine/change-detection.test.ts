/**
 * Alerts that matter, end to end: an article served on 127.0.0.1 in two versions, one monitor
 * check of each, through the command line. Each kind of noise, on a page of its own, leaves its
 * page `same` and says why (the noise's kind); each kind of edit makes its page `changed`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { contentHash } from '../../src/engine/diff/markdown-diff.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';

interface Article {
  lang: string;
  title: string;
  /** The <h1>: in the page's header, outside the article, as many news sites place it. */
  headline: string;
  /** Lines between the headline and the first paragraph (a byline, a counter). */
  head: string[];
  paragraphs: string[];
  /** Lines right after the last paragraph. */
  tail: string[];
  image: string;
  /** A line at the very end of the article, after the tail. */
  closing: string;
  /** Markup in <head>, and around the article: what a reader does not see, or not in the article. */
  headMarkup: string;
  articleAttributes: string;
  aside: string;
  footer: string;
}

const ARTICLE: Article = {
  lang: 'en',
  title: 'Council approves the park budget - Town Daily',
  headline: 'Council approves the park budget',
  head: [],
  paragraphs: [
    'The town council voted on Tuesday evening to approve a budget of 3 million euros for the renovation of the central park, after a debate that lasted more than four hours.',
    'Residents had asked for a new playground, better lighting along the paths and more benches near the pond, and the plan adopted includes all three of these requests.',
    'Work is expected to begin in the spring and to last about eighteen months, during which parts of the park will stay open to the public on most days of the week.',
    'Read the <a href="/docs/plan.pdf">full plan</a> on the website of the council.',
  ],
  tail: [],
  image: '/img/park.jpg',
  closing: '',
  headMarkup: '',
  articleAttributes: '',
  aside: '',
  footer: 'Town Daily',
};

const page = (a: Article) => `<!doctype html><html lang="${a.lang}"><head><title>${a.title}</title>${a.headMarkup}</head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a></nav><h1>${a.headline}</h1></header>
<main><article ${a.articleAttributes}>
${a.head.map((line) => `<p>${line}</p>`).join('\n')}
<p><img src="${a.image}" alt="The park in spring"></p>
${a.paragraphs.map((text) => `<p>${text}</p>`).join('\n')}
${a.tail.map((line) => `<p>${line}</p>`).join('\n')}
${a.closing && `<p>${a.closing}</p>`}
</article>${a.aside}</main>
<footer><p>${a.footer}</p></footer>
</body></html>`;

const with_ = (changes: Partial<Article>): Article => ({ ...ARTICLE, ...changes });
const paragraphsWith = (index: number, text: string) => ARTICLE.paragraphs.map((p, i) => (i === index ? text : p));

interface Case {
  name: string;
  before: Article;
  after: Article;
  /** `same` with this kind of noise, `same` with the same text (noise: null), or `changed`. */
  expect: { status: 'same'; noise: string | null } | { status: 'changed' };
}

const CASES: Case[] = [
  // Noise: a reader sees nothing new.
  {
    name: 'relative-time',
    before: with_({ head: ['Updated 3 hours ago'] }),
    after: with_({ head: ['Updated 4 hours ago'] }),
    expect: { status: 'same', noise: 'relative time' },
  },
  {
    name: 'relative-time-de',
    before: with_({ lang: 'de', head: ['Aktualisiert vor 59 Minuten'] }),
    after: with_({ lang: 'de', head: ['Aktualisiert vor 1 Stunde'] }),
    expect: { status: 'same', noise: 'relative time' },
  },
  { name: 'counter-head', before: with_({ head: ['1,234 views'] }), after: with_({ head: ['1,301 views'] }), expect: { status: 'same', noise: 'counter' } },
  { name: 'counter-tail', before: with_({ tail: ['12 comments'] }), after: with_({ tail: ['13 comments'] }), expect: { status: 'same', noise: 'counter' } },
  {
    name: 'cache-busting',
    before: with_({ image: '/img/park.jpg?ver=6.4.2' }),
    after: with_({ image: '/img/park.jpg?ver=6.4.3' }),
    expect: { status: 'same', noise: 'asset address' },
  },
  {
    name: 'hashed-file-name',
    before: with_({ image: '/img/park.3f9a1c2b7d.jpg' }),
    after: with_({ image: '/img/park.8e0b44a1c9.jpg' }),
    expect: { status: 'same', noise: 'asset address' },
  },
  {
    name: 'clock',
    before: with_({ closing: 'Page generated at 2026-12-01 14:32:05 UTC' }),
    after: with_({ closing: 'Page generated at 2026-12-01 14:37:41 UTC' }),
    expect: { status: 'same', noise: 'clock' },
  },
  {
    name: 'link-token',
    before: with_({ paragraphs: paragraphsWith(3, 'Read the <a href="/docs/plan.pdf?session=a8f3k29dj4k2l9x0">full plan</a> on the website of the council.') }),
    after: with_({ paragraphs: paragraphsWith(3, 'Read the <a href="/docs/plan.pdf?session=q1w2e3r4t5y6u7i8">full plan</a> on the website of the council.') }),
    expect: { status: 'same', noise: 'link token' },
  },
  // Noise that never reaches the text a check compares: same, and nothing to say.
  {
    name: 'form-token',
    before: with_({
      closing: '<form><input type="hidden" name="csrf" value="a8f3k29dj4">Comment<button>Send</button></form>',
      headMarkup: '<meta name="csrf-token" content="a8f3k29dj4">',
    }),
    after: with_({
      closing: '<form><input type="hidden" name="csrf" value="q1w2e3r4t5">Comment<button>Send</button></form>',
      headMarkup: '<meta name="csrf-token" content="q1w2e3r4t5">',
    }),
    expect: { status: 'same', noise: null },
  },
  {
    name: 'script-nonce',
    before: with_({ headMarkup: '<script nonce="r4nd0m1">window.build = "b-1699999999";</script>' }),
    after: with_({ headMarkup: '<script nonce="n3wn0nc3">window.build = "b-1700000123";</script>' }),
    expect: { status: 'same', noise: null },
  },
  {
    name: 'hashed-classes',
    before: with_({
      articleAttributes: 'class="Article_body__x9k2p" data-reactid=".0.1"',
      paragraphs: paragraphsWith(1, ARTICLE.paragraphs[1]!.replace('a new playground', '<em class="css-k3f9x">a new playground</em>')),
    }),
    after: with_({
      articleAttributes: 'data-reactid=".3.7" class="Article_body__lz3qd"',
      paragraphs: paragraphsWith(1, ARTICLE.paragraphs[1]!.replace('a new playground', '<em class="css-znm2ad">a new playground</em>')),
    }),
    expect: { status: 'same', noise: null },
  },
  {
    name: 'footer-clock',
    before: with_({ footer: 'Rendered at 2026-12-01 14:32:05 in 0.123 s' }),
    after: with_({ footer: 'Rendered at 2026-12-01 14:33:10 in 0.087 s' }),
    expect: { status: 'same', noise: null },
  },
  {
    name: 'rotating-aside',
    before: with_({ aside: '<aside class="most-read"><h2>Most read</h2><ul><li><a href="/a">Story A</a></li><li><a href="/b">Story B</a></li></ul></aside>' }),
    after: with_({ aside: '<aside class="most-read"><h2>Most read</h2><ul><li><a href="/c">Story C</a></li><li><a href="/d">Story D</a></li></ul></aside>' }),
    expect: { status: 'same', noise: null },
  },
  {
    name: 'jsonld-date',
    before: with_({ headMarkup: '<script type="application/ld+json">{"@type":"NewsArticle","dateModified":"2026-12-01T14:32:05Z"}</script>' }),
    after: with_({ headMarkup: '<script type="application/ld+json">{"@type":"NewsArticle","dateModified":"2026-12-01T15:02:05Z"}</script>' }),
    expect: { status: 'same', noise: null },
  },
  // Edits: a reader sees something new.
  {
    name: 'words',
    before: ARTICLE,
    after: with_({ paragraphs: paragraphsWith(1, ARTICLE.paragraphs[1]!.replace('better lighting', 'brighter lamps')) }),
    expect: { status: 'changed' },
  },
  {
    name: 'number',
    before: ARTICLE,
    after: with_({ paragraphs: paragraphsWith(0, ARTICLE.paragraphs[0]!.replace('3 million', '4 million')) }),
    expect: { status: 'changed' },
  },
  {
    name: 'paragraph-added',
    before: ARTICLE,
    after: with_({
      paragraphs: [
        ...ARTICLE.paragraphs.slice(0, 2),
        'The mayor said that the council would publish a report on the progress of the work every three months.',
        ...ARTICLE.paragraphs.slice(2),
      ],
    }),
    expect: { status: 'changed' },
  },
  { name: 'paragraph-removed', before: ARTICLE, after: with_({ paragraphs: ARTICLE.paragraphs.filter((_, i) => i !== 1) }), expect: { status: 'changed' } },
  { name: 'headline', before: ARTICLE, after: with_({ headline: 'Park budget approved after a long debate' }), expect: { status: 'changed' } },
  { name: 'title-only', before: ARTICLE, after: with_({ title: 'Park budget approved - Town Daily' }), expect: { status: 'changed' } },
  // Numbers that are content, though they stand where counters do.
  { name: 'price-by-the-headline', before: with_({ head: ['€54.99'] }), after: with_({ head: ['€44.99'] }), expect: { status: 'changed' } },
  {
    name: 'count-in-the-article',
    before: with_({ paragraphs: [...ARTICLE.paragraphs.slice(0, 2), '120 seats', ...ARTICLE.paragraphs.slice(2)] }),
    after: with_({ paragraphs: [...ARTICLE.paragraphs.slice(0, 2), '150 seats', ...ARTICLE.paragraphs.slice(2)] }),
    expect: { status: 'changed' },
  },
  { name: 'other-image', before: ARTICLE, after: with_({ image: '/img/pond.jpg' }), expect: { status: 'changed' } },
  {
    name: 'time-in-a-sentence',
    before: with_({ paragraphs: paragraphsWith(2, 'The council will vote on the contracts for the work in 3 days, once the members have read the offers.') }),
    after: with_({ paragraphs: paragraphsWith(2, 'The council will vote on the contracts for the work in 5 days, once the members have read the offers.') }),
    expect: { status: 'changed' },
  },
];

describe('alerts that matter: noise is same, with its reason; edits are changed', () => {
  let server: TestServer;
  let version: 'before' | 'after' = 'before';
  const byPath = new Map(CASES.map((c) => [`/${c.name}`, c]));
  const home = tempDir();
  const env = { WEBWATCH_HOME: home };
  let pages: { url: string; status: string; noise?: { reason: string; parts: { kind: string }[]; diff: { text: string } } }[] = [];

  before(async () => {
    server = await startServer({}, (request, response) => {
      const found = byPath.get(request.url ?? '');
      if (!found) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(found[version]));
    });
    const urls = CASES.map((c) => `${server.origin}/${c.name}`);
    const file = writeFiles({ 'm.yaml': `name: Articles\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ${JSON.stringify(urls)}}]\n` });
    assert.equal((await run(['monitor', 'apply', '-f', file], { env })).code, 0);
    const first = JSON.parse((await run(['monitor', 'run', 'Articles', '--json'], { env })).stdout);
    assert.equal(first.summary.new, CASES.length);
    version = 'after';
    const second = JSON.parse((await run(['monitor', 'run', 'Articles', '--json'], { env })).stdout);
    pages = JSON.parse((await run(['monitor', 'check', 'Articles', second.id, '--json'], { env })).stdout).pages;
  });
  after(() => server.close());

  for (const c of CASES) {
    it(`${c.name}: ${c.expect.status}${c.expect.status === 'same' ? ` (${c.expect.noise})` : ''}`, () => {
      const result = pages.find((p) => p.url === `${server.origin}/${c.name}`);
      assert.ok(result, `no result for ${c.name}`);
      assert.equal(result.status, c.expect.status, JSON.stringify(result.noise ?? result));
      if (c.expect.status === 'same' && c.expect.noise === null) {
        assert.equal(result.noise, undefined);
      } else if (c.expect.status === 'same') {
        assert.ok(result.noise, 'a same page whose text differs says why');
        assert.deepEqual([...new Set(result.noise.parts.map((part) => part.kind))], [c.expect.noise]);
        assert.match(result.noise.reason, /^only volatile parts changed/);
        // The raw difference stays available.
        assert.match(result.noise.diff.text, /^-.*\n\+/m);
      } else {
        assert.equal(result.noise, undefined);
      }
    });
  }

  it('lists same pages with volatile parts in the report, last, with their reason and raw diff', async () => {
    const file = join(tempDir(), 'report.html');
    assert.equal((await run(['monitor', 'report', 'Articles', 'latest', '-o', file], { env })).code, 0);
    const report = readFileSync(file, 'utf8');
    const noisy = CASES.filter((c) => c.expect.status === 'same' && c.expect.noise !== null).length;
    assert.match(report, new RegExp(`<h2>Same pages, volatile parts only \\(${noisy}\\)</h2>`));
    assert.ok(report.indexOf('Same pages, volatile parts only') > report.indexOf('Changed pages'));
    assert.match(
      report,
      /only volatile parts changed: a relative time \((?:&quot;|&#34;)Updated 3 hours ago(?:&quot;|&#34;) → (?:&quot;|&#34;)Updated 4 hours ago(?:&quot;|&#34;)\)/,
    );
  });

  it('shows why a same page is same, under the table', async () => {
    const listed = await run(['monitor', 'check', 'Articles', 'latest'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stderr, /differed only in volatile parts/);
    assert.match(listed.stderr, /\/relative-time: only volatile parts changed: a relative time \("Updated 3 hours ago" → "Updated 4 hours ago"\)/);
  });
});

describe('a snapshot kept before checks kept titles and headlines', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({}, (_request, response) => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(ARTICLE)));
  });
  after(() => server.close());

  it('is compared without them once, the page same, and its text kept again with them', async () => {
    const home = tempDir();
    const env = { WEBWATCH_HOME: home };
    const file = writeFiles({ 'm.yaml': `name: Old\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${server.origin}/a"]}]\n` });
    await run(['monitor', 'apply', '-f', file], { env });
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Old', '--json'], { env })).stdout).summary.new, 1);
    // As an earlier webwatch kept it: the markdown alone, its hash, no fingerprint to skip the comparison.
    const db = new Database(join(home, 'webwatch.db'));
    const kept = db.prepare('SELECT markdown FROM snapshots').get() as { markdown: string };
    assert.match(kept.markdown, /^<!-- title: Council approves the park budget - Town Daily -->\n<!-- headline: Council approves the park budget -->\n\n/);
    const old = kept.markdown.replace(/^(?:<!--.*-->\n)+\n/, '');
    db.prepare('UPDATE snapshots SET markdown = ?, content_hash = ?, fingerprint = NULL').run(old, contentHash(old));
    db.close();

    const check = JSON.parse((await run(['monitor', 'run', 'Old', '--json'], { env })).stdout);
    assert.equal(check.summary.same, 1);
    const again = new Database(join(home, 'webwatch.db'));
    const texts = (again.prepare('SELECT markdown FROM snapshots ORDER BY rowid').all() as { markdown: string }[]).map((row) => row.markdown);
    again.close();
    assert.equal(texts.length, 2);
    assert.equal(texts[1], kept.markdown);
    // The next check compares with the text kept now: the same again, nothing more written.
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Old', '--json'], { env })).stdout).summary.same, 1);
  });
});

describe('a box of linked pictures that rotates at every check', () => {
  let server: TestServer;
  let round = 0;
  let edited = false;
  // Teasers of other stories as linked pictures (lists of links are left out with the navigation).
  const box = () =>
    [0, 1, 2].map((i) => `<p><a href="/story/${round * 3 + i}"><img src="/img/${round * 3 + i}.jpg" alt="Story ${round * 3 + i}"></a></p>`).join('');
  before(async () => {
    server = await startServer({}, (_request, response) => {
      const paragraphs = edited ? paragraphsWith(2, ARTICLE.paragraphs[2]!.replace('eighteen months', 'two years')) : ARTICLE.paragraphs;
      const html = page(with_({ paragraphs: [paragraphs[0]!, paragraphs[1]!, 'BOX', paragraphs[2]!, paragraphs[3]!] })).replace('<p>BOX</p>', box());
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
  });
  after(() => server.close());

  it('alerts while it is new, is same with its reason once it changed at each of the last two checks, and an edit beside it still alerts', async () => {
    const home = tempDir();
    const env = { WEBWATCH_HOME: home };
    const file = writeFiles({ 'm.yaml': `name: Box\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${server.origin}/a"]}]\n` });
    await run(['monitor', 'apply', '-f', file], { env });
    const statuses: string[] = [];
    let last: { noise?: { parts: { kind: string }[] } } | undefined;
    for (const step of [0, 1, 2, 3, 4]) {
      round = step;
      const check = JSON.parse((await run(['monitor', 'run', 'Box', '--json'], { env })).stdout);
      const [result] = JSON.parse((await run(['monitor', 'check', 'Box', check.id, '--json'], { env })).stdout).pages;
      statuses.push(result.status);
      last = result;
    }
    assert.deepEqual(statuses, ['new', 'changed', 'changed', 'same', 'same']);
    assert.deepEqual(
      last?.noise?.parts.map((part) => part.kind),
      ['rotating part'],
    );
    // A paragraph edited while the box turns on: changed.
    round = 5;
    edited = true;
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Box', '--json'], { env })).stdout).summary.changed, 1);
  });
});

describe("the user's say: excludeTags takes out a part that is noise by no shape", () => {
  let server: TestServer;
  let viewers = 'Alice, Bob and Carol are reading this now';
  before(async () => {
    server = await startServer({}, (_request, response) => {
      const html = page(with_({ paragraphs: [ARTICLE.paragraphs[0]!, `<span class="live-readers">${viewers}</span>`, ...ARTICLE.paragraphs.slice(1)] }));
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
  });
  after(() => server.close());

  it('is a change without it, and nothing with it', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const target = (options: string) => `{type: scrape, urls: ["${server.origin}/a"]${options}}`;
    const file = writeFiles({
      'm.yaml': `name: Plain\nschedule: {cron: "0 * * * *"}\ntargets: [${target('')}]\n---\nname: Told\nschedule: {cron: "0 * * * *"}\ntargets: [${target(', scrapeOptions: {excludeTags: [".live-readers"]}')}]\n`,
    });
    assert.equal((await run(['monitor', 'apply', '-f', file], { env })).code, 0);
    for (const name of ['Plain', 'Told']) assert.equal(JSON.parse((await run(['monitor', 'run', name, '--json'], { env })).stdout).summary.new, 1);
    viewers = 'Dan and Erin are reading this now';
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Plain', '--json'], { env })).stdout).summary.changed, 1);
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Told', '--json'], { env })).stdout).summary.same, 1);
  });
});
