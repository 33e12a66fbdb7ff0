/**
 * The pieces of a check's report: the stored diff as stretches (folded where long), words marked
 * on each side, page text kept inert, JSON fields, screenshots compared pixel by pixel (PNG and
 * JPEG, different sizes, sizes refused before decoding), field paths, the history chart.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { diffMarkdown } from '../../src/engine/diff/markdown-diff.js';
import { diffJson, valueAtPath } from '../../src/engine/diff/json-diff.js';
import { changeHtml, diffSegments, diffTableHtml, markWords } from '../../src/engine/diff/diff-html.js';
import { compareScreenshots, MAX_COMPARED_PIXELS } from '../../src/engine/report/screenshot-diff.js';
import { contentSecurityPolicy, historySvg, renderReport } from '../../src/engine/report/render-report.js';
import type { CheckRecord } from '../../src/contract/checks.js';
import { bar, sparkline } from '../../src/ui/sparkline.js';
import { checkReportHtml, MAX_SCREENSHOT_PAGES, type ReportSources } from '../../src/engine/report/check-report.js';
import type { StoredMonitor } from '../../src/engine/monitors/monitor-store.js';
import type { CheckPage } from '../../src/contract/checks.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/files.js';

const lines = (count: number, word = 'line') => Array.from({ length: count }, (_, i) => `${word} ${i + 1}`);

/** A width x height PNG filled with one colour, with an optional rectangle of another. */
function png(width: number, height: number, fill: number[], box?: { x: number; y: number; w: number; h: number; colour: number[] }): Buffer {
  const image = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = box && x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h;
      image.data.set([...(inside ? box.colour : fill), 255], (y * width + x) * 4);
    }
  }
  return PNG.sync.write(image);
}

const WHITE = [255, 255, 255];
const BLACK = [0, 0, 0];

describe('a page diff as stretches', () => {
  it('keeps the changes and their context, folds the unchanged stretches between and around with their text', () => {
    const before = [...lines(20), 'The price is $10 a month.', ...lines(20, 'more')].join('\n');
    const after = [...lines(20), 'The price is $12 a month.', ...lines(20, 'more')].join('\n');
    const segments = diffSegments(diffMarkdown(before, after), after);
    assert.deepEqual(
      segments.map((s) => s.kind),
      ['fold', 'same', 'change', 'same', 'fold'],
    );
    const [head, , change, , tail] = segments;
    assert.deepEqual(head, { kind: 'fold', count: 17, lines: lines(17) });
    assert.deepEqual(change, { kind: 'change', removed: ['The price is $10 a month.'], added: ['The price is $12 a month.'] });
    assert.equal(tail?.kind === 'fold' && tail.count, 17);
    // Every line of the page is there once, folded or shown.
    const shown = segments.flatMap((s) => (s.kind === 'change' ? s.added : (s.lines ?? [])));
    assert.deepEqual(shown, after.split('\n'));
  });

  it('without the current page, the folds between chunks say how many lines, and none is invented', () => {
    const before = [...lines(30), 'a', ...lines(30, 'b'), 'c'].join('\n');
    const after = [...lines(30), 'A', ...lines(30, 'b'), 'C'].join('\n');
    const segments = diffSegments(diffMarkdown(before, after));
    const folds = segments.filter((s) => s.kind === 'fold');
    assert.deepEqual(
      folds.map((f) => f.kind === 'fold' && [f.count, f.lines]),
      [
        [27, null],
        [24, null],
      ],
    );
  });

  it('marks the words that changed on each side, not the whole line', () => {
    const { before, after } = markWords(['Pro plan: $10 per month, billed yearly.'], ['Pro plan: $12 per month, billed monthly.']);
    // Words, not punctuation: the currency sign and the full stop stay unmarked.
    assert.deepEqual(
      before.filter((p) => p.marked).map((p) => p.text),
      ['10', 'yearly'],
    );
    assert.deepEqual(
      after.filter((p) => p.marked).map((p) => p.text),
      ['12', 'monthly'],
    );
    assert.equal(before.map((p) => p.text).join(''), 'Pro plan: $10 per month, billed yearly.');
    const html = diffTableHtml([{ kind: 'change', removed: ['Pro plan: $10 per month'], added: ['Pro plan: $12 per month'] }], 'classes');
    assert.match(html, /\$<del>10<\/del>/);
    assert.match(html, /\$<ins>12<\/ins>/);
    assert.doesNotMatch(html, /<del>Pro/);
  });

  it('marks a whole stretch when the two sides differ too much to pair words, and a side added whole', () => {
    const removed = lines(300, 'old');
    const added = lines(300, 'new').map((line) => line.split('').reverse().join(''));
    const { before, after } = markWords(removed, added);
    assert.deepEqual(before, [{ text: removed.join('\n'), marked: true }]);
    assert.deepEqual(after, [{ text: added.join('\n'), marked: true }]);
    assert.deepEqual(markWords([], ['only new']), { before: [], after: [{ text: 'only new', marked: true }] });
  });

  it('shows page text as text: a script, an onerror attribute and a javascript: link stay inert', () => {
    const evil = ['<script>window.pwned=1</script>', '<img src=x onerror="alert(1)">', '[click](javascript:alert(1))', '"quoted" & \'single\''];
    const html = changeHtml(diffMarkdown('safe\n', `${evil.join('\n')}\n`), 'classes');
    assert.doesNotMatch(html, /<script|<img|onerror="/);
    assert.match(html, /&#60;script&#62;window.pwned=1&#60;\/script&#62;/);
    assert.match(html, /&#34;quoted&#34; &#38; &#39;single&#39;/);
    const inline = changeHtml(diffMarkdown('safe\n', `${evil.join('\n')}\n`), 'inline');
    assert.doesNotMatch(inline, /<script|<img|onerror="/);
    assert.match(inline, /<ins style="background:#acf2bd/);
  });

  it('shows extracted JSON as a table of fields, before and after', () => {
    const html = changeHtml({ json: diffJson({ plans: [{ price: 10 }], note: '<b>x</b>' }, { plans: [{ price: 12 }], note: '<b>x</b>' }) }, 'classes');
    assert.match(html, /<code>plans\[0\]\.price<\/code><\/td><td class="before"><code>10<\/code><\/td><td class="after"><code>12<\/code>/);
    assert.doesNotMatch(html, /note/);
  });
});

describe('screenshots compared', () => {
  it('finds no change between equal images and the share of a changed box', async () => {
    const plain = png(100, 100, WHITE);
    assert.equal((await compareScreenshots(plain, plain)).changedPixels, 0);
    const boxed = png(100, 100, WHITE, { x: 10, y: 10, w: 20, h: 10, colour: BLACK });
    const compared = await compareScreenshots(plain, boxed);
    assert.equal(compared.changedPixels, 200);
    assert.equal(compared.changedShare, 0.02);
    // The marked image is a PNG of the compared size, red where the box is.
    const marked = PNG.sync.read(compared.diffPng);
    assert.equal(marked.width, 100);
    const at = (x: number, y: number) => [...marked.data.subarray((y * 100 + x) * 4, (y * 100 + x) * 4 + 3)];
    assert.deepEqual(at(15, 15), [255, 0, 0]);
    assert.notDeepEqual(at(50, 50), [255, 0, 0]);
  });

  it('counts what a grown page adds as changed, and reads JPEG screenshots', async () => {
    const short = png(50, 50, WHITE);
    const tall = png(50, 100, WHITE);
    const grown = await compareScreenshots(short, tall);
    assert.equal(grown.height, 100);
    assert.equal(grown.changedPixels, 50 * 50);
    const raw = { width: 40, height: 40, data: Buffer.alloc(40 * 40 * 4, 255) };
    const white = jpeg.encode(raw, 90).data;
    const dark = jpeg.encode({ ...raw, data: Buffer.alloc(40 * 40 * 4, 0) }, 90).data;
    assert.equal((await compareScreenshots(white, white)).changedPixels, 0);
    assert.equal((await compareScreenshots(white, dark)).changedShare, 1);
  });

  it('refuses an image too large by its header before decoding it, and one that is not an image', async () => {
    const huge = png(1, 1, WHITE);
    // The header says 10,000 x 10,000: far beyond the limit, though the file is tiny.
    huge.writeUInt32BE(10_000, 16);
    huge.writeUInt32BE(10_000, 20);
    assert.ok(10_000 * 10_000 > MAX_COMPARED_PIXELS);
    await assert.rejects(compareScreenshots(huge, huge), /cannot be compared: 10000 x 10000 pixels is over/);
    await assert.rejects(compareScreenshots(Buffer.from('<html>'), png(2, 2, WHITE)), /cannot be compared: not a PNG/);
    const broken = png(20, 20, WHITE).subarray(0, 60);
    await assert.rejects(compareScreenshots(broken, broken), /cannot be compared/);
  });
});

describe('field paths and charts', () => {
  it('reads a value at a path written as the JSON diff writes them', () => {
    const json = { plans: [{ price: 10 }, { price: 20, 'odd key': 'x' }], stock: 0 };
    assert.equal(valueAtPath(json, 'plans[1].price'), 20);
    assert.equal(valueAtPath(json, 'plans[1]["odd key"]'), 'x');
    assert.equal(valueAtPath(json, 'stock'), 0);
    assert.equal(valueAtPath(json, 'plans[5].price'), undefined);
    assert.equal(valueAtPath(json, 'stock.count'), undefined);
    assert.deepEqual(valueAtPath(json, '(root)'), json);
    // Every path diffJson writes reads back its value.
    for (const [path, { current }] of Object.entries(diffJson(undefined, json))) assert.deepEqual(valueAtPath(json, path), current);
    assert.throws(() => valueAtPath(json, 'plans[x]'), /cannot read the path at "\[x\]"/);
  });

  it('draws a sparkline and bars from the smallest value to the largest', () => {
    assert.equal(sparkline([1, 5, 9]), '▁▅█');
    assert.equal(sparkline([3, null, 3]), '▄ ▄');
    assert.equal(sparkline([0, 0], 0), '▁▁');
    assert.equal(bar(10, 10, 4), '████');
    assert.equal(bar(1, 8, 1), '▏');
    assert.equal(bar(0, 10, 4), '');
  });

  const check = (id: string, changed: number, startedAt: string): CheckRecord => ({
    id,
    monitorId: 'm',
    status: 'completed',
    trigger: 'manual',
    scheduledFor: null,
    startedAt,
    finishedAt: startedAt,
    summary: { totalPages: 5, same: 5 - changed, changed, new: 0, removed: 0, error: 0 },
    error: null,
    notificationStatus: null,
    billingStatus: 'not_applicable',
    estimatedCredits: null,
    reservedCredits: null,
    actualCredits: 5,
    createdAt: startedAt,
    updatedAt: startedAt,
  });

  it('charts the history oldest left, heights by changes, this check outlined', () => {
    const svg = historySvg([check('c3', 4, '2026-11-03T00:00:00Z'), check('c2', 0, '2026-11-02T00:00:00Z'), check('c1', 2, '2026-11-01T00:00:00Z')], 'c3');
    const rects = [...svg.matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#bf8700"\/>/g)].map((m) => ({
      x: Number(m[1]),
      h: Number(m[4]),
    }));
    assert.equal(rects.length, 2, 'no bar for a check without changes');
    assert.ok(rects[0]!.x < rects[1]!.x && rects[0]!.h * 2 === rects[1]!.h, JSON.stringify(rects));
    assert.equal((svg.match(/stroke-dasharray/g) ?? []).length, 1);
    assert.match(svg, /<title>2026-11-01T00:00:00Z: 2 changed/);
  });

  it('a report allows nothing but its own style sheet and embedded images', () => {
    const html = renderReport({
      monitor: { id: 'm', name: '<b>Shop</b>', goal: null },
      check: check('c1', 0, '2026-11-01T00:00:00Z'),
      pages: [],
      history: [],
      generatedAt: 'now',
      version: 'test',
    });
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!;
    assert.equal(policy, contentSecurityPolicy());
    assert.match(policy, /^default-src 'none'; img-src data:; style-src 'sha256-[A-Za-z0-9+/=]+'/);
    assert.doesNotMatch(html, /<script|<link|src="http/);
    assert.match(html, /<h1>&#60;b&#62;Shop&#60;\/b&#62;<\/h1>/);
    assert.match(html, /Nothing changed in this check/);
  });

  it("shows the judge's verdict, the fields of a JSON page and the three screenshots, all inert", () => {
    const result = {
      url: 'javascript:alert(1)',
      targetId: 't',
      status: 'changed' as const,
      statusCode: 200,
      previousScrapeId: 'a',
      currentScrapeId: 'b',
      error: null,
      diff: { json: { price: { previous: 10, current: 12 } } },
      judgment: {
        meaningful: true,
        confidence: 'high' as const,
        reason: 'the price rose <img src=x onerror=alert(1)>',
        meaningfulChanges: [{ type: 'changed' as const, before: '$10', after: '$12', reason: 'price' }],
      },
    };
    const image = { type: 'image/png' as const, bytes: png(2, 2, WHITE) };
    const html = renderReport({
      monitor: { id: 'm', name: 'Shop', goal: 'Tell me when <b>prices</b> change' },
      check: check('c1', 1, '2026-11-01T00:00:00Z'),
      history: [check('c1', 1, '2026-11-01T00:00:00Z')],
      pages: [
        {
          result,
          fields: { price: { previous: 10, current: 12 } },
          screenshots: { before: image, after: image, diff: { png: image.bytes, changedShare: 0.125, width: 2, height: 2 } },
        },
      ],
      generatedAt: 'now',
      version: 'test',
    });
    assert.match(
      html,
      /<div class="verdict yes"><strong>Meaningful<\/strong> \(high confidence\): the price rose &#60;img src=x onerror=alert\(1\)&#62;<ul><li>changed: <del>\$10<\/del> <ins>\$12<\/ins>/,
    );
    assert.match(html, /goal: Tell me when &#60;b&#62;prices/);
    assert.match(html, /<td class="before"><code>10<\/code><\/td><td class="after"><code>12<\/code>/);
    assert.equal((html.match(/<img alt="[^"]*" src="data:image\/png;base64,/g) ?? []).length, 3);
    assert.match(html, /changed pixels: 12\.50 % of 2 x 2/);
    // The page's URL is not a link: it is not http(s).
    assert.doesNotMatch(html, /href="javascript/);
    assert.match(html, /javascript:alert\(1\)/);
    assert.match(html, /<h2>Changed pages \(1\)<\/h2>/);
  });

  it('reads a large check a batch at a time, every page once, and embeds the screenshots of the first 50 pages only', async () => {
    const kept = tempDir();
    writeFileSync(join(kept, 'before.png'), png(4, 4, WHITE));
    writeFileSync(join(kept, 'after.png'), png(4, 4, WHITE, { x: 0, y: 0, w: 2, h: 2, colour: BLACK }));
    const count = MAX_SCREENSHOT_PAGES + 7;
    const all: CheckPage[] = Array.from({ length: count }, (_, i) => ({
      id: `c:${i}`,
      createdAt: 'now',
      url: `https://example.com/${i}`,
      targetId: 't',
      status: 'changed',
      statusCode: 200,
      previousScrapeId: `p${i}`,
      currentScrapeId: `c${i}`,
      diff: diffMarkdown(`page ${i} old\n`, `page ${i} new\n`),
      judgment: null,
      error: null,
      screenshot: 'after.png',
    }));
    const windows: number[] = [];
    const sources: ReportSources = {
      keptDir: kept,
      version: 'test',
      now: () => new Date(0),
      checks: {
        list: async () => [check('c', count, '2026-11-01T00:00:00Z')],
        pages: async (_id, status, window) => {
          windows.push(window?.limit ?? Infinity);
          const matching = all.filter((page) => page.status === status);
          return window ? matching.slice(window.offset, window.offset + window.limit) : matching;
        },
        snapshotMarkdown: async (scrapeId) => `page ${scrapeId.slice(1)} new\n`,
        previousScreenshot: async () => 'before.png',
      },
    };
    const monitor = { id: 'm', definition: { name: 'Many', goal: null } } as unknown as StoredMonitor;
    const html = (await checkReportHtml(sources, monitor, check('c', count, '2026-11-01T00:00:00Z'))).join('');
    assert.ok(
      windows.every((limit) => limit <= 50),
      `read ${windows.join(', ')} at a time`,
    );
    for (let i = 0; i < count; i++) assert.equal(html.split(`https://example.com/${i}"`).length - 1, 1, `page ${i} once`);
    assert.equal((html.match(/<figcaption>changed pixels: 25\.00 % of 4 x 4/g) ?? []).length, MAX_SCREENSHOT_PAGES);
    assert.equal((html.match(/A report shows the screenshots of its first 50 pages/g) ?? []).length, 7);
  });
});
