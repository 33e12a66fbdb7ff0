/** The reader's comparison of two kept texts of a page: which differences are volatile, in any language. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageText, splitPageText } from '../../src/engine/diff/page-text.js';
import { diffMarkdown } from '../../src/engine/diff/markdown-diff.js';
import { comparePages, settledByHistory } from '../../src/engine/diff/reader-comparison.js';

const PROSE = [
  'The town council voted on Tuesday evening to approve a budget for the renovation of the central park, after a long debate.',
  'Residents had asked for a new playground, better lighting along the paths and more benches near the pond.',
];

/** A kept text: headings, lines before the prose, the prose, lines after it. */
const kept = (head: string[], tail: string[] = [], prose = PROSE, headings = { title: 'Park budget - Town Daily', headline: 'Park budget' }) =>
  pageText([...head, ...prose, ...tail].join('\n\n'), headings);

const kindOf = (before: string, after: string, language?: string) => {
  const comparison = comparePages(before, after, language);
  return comparison.changed ? 'changed' : comparison.noise ? comparison.noise.parts[0]!.kind : 'same';
};

describe('the reader comparison', () => {
  it("knows relative times in the page's language, from CLDR", () => {
    const table: [string, string, string][] = [
      ['fr', 'Mis à jour il y a 3 heures', 'Mis à jour il y a 4 heures'],
      ['zh', '3小时前', '5小时前'],
      ['ru', 'Обновлено 2 часа назад', 'Обновлено 5 часов назад'],
      ['ja', '3 時間前', '4 時間前'],
      ['es', 'hace 3 minutos', 'hace 1 hora'],
      ['en', 'Posted 23 hours ago', 'Posted yesterday'],
      ['de-AT', 'vor 2 Tagen', 'vor 3 Tagen'],
    ];
    // Between two paragraphs, where no counter stands: only the relative time makes it volatile.
    const between = (line: string) => kept([], [], [PROSE[0]!, line, PROSE[1]!]);
    for (const [language, before, after] of table)
      assert.equal(kindOf(between(before), between(after), language), 'relative time', `${language}: ${before} → ${after}`);
    // In a language the page does not say, its words are not known: a change.
    assert.equal(kindOf(between('3小时前'), between('5小时前'), 'en'), 'changed');
    assert.equal(kindOf(between('3 apples left'), between('2 apples left'), 'en'), 'changed');
  });

  it('sees a number in prose, a heading, a table row or beside a price as content', () => {
    const edited = PROSE.map((line, i) => (i === 0 ? line.replace('a budget', 'a budget of 3 million') : line));
    const more = PROSE.map((line, i) => (i === 0 ? line.replace('a budget', 'a budget of 4 million') : line));
    assert.equal(kindOf(kept([], [], edited), kept([], [], more)), 'changed');
    assert.equal(kindOf(kept(['## 12 reasons']), kept(['## 13 reasons'])), 'changed');
    assert.equal(kindOf(kept(['| Seats | 120 |']), kept(['| Seats | 150 |'])), 'changed');
    assert.equal(kindOf(kept(['Pro: 49 $ a month']), kept(['Pro: 59 $ a month'])), 'changed');
    assert.equal(kindOf(kept(['Price: 54.99 €']), kept(['Price: 44.99 €'])), 'changed');
  });

  it('sees counters and dates only next to the headline or right after the last paragraph', () => {
    assert.equal(kindOf(kept(['1,234 views']), kept(['1,301 views'])), 'counter');
    assert.equal(kindOf(kept([], ['Last updated 1 December 2026']), kept([], ['Last updated 2 December 2026'])), 'counter');
    assert.equal(kindOf(kept([], ['- 12 comments']), kept([], ['- 13 comments'])), 'counter');
    // Past a heading after the article, or further down, lines are the page's own.
    assert.equal(kindOf(kept([], ['## Plans', '10,000 views a month']), kept([], ['## Plans', '20,000 views a month'])), 'changed');
    assert.equal(kindOf(kept([], ['One', 'Two', 'Three', '12 comments']), kept([], ['One', 'Two', 'Three', '13 comments'])), 'changed');
    // A list after the article is its last items, unless a word or two.
    assert.equal(kindOf(kept([], ['- 10,000 page views a month']), kept([], ['- 20,000 page views a month'])), 'changed');
    // A page without prose has no article to stand beside: its numbers are its content.
    assert.equal(kindOf(kept(['1,234 views'], [], []), kept(['1,301 views'], [], [])), 'changed');
  });

  it('tells an edit from noise when both are in one check', () => {
    const before = kept(['Posted 3 hours ago'], ['12 comments']);
    const after = kept(['Posted 4 hours ago'], ['13 comments', 'A new closing line was added by the editor.']);
    assert.equal(kindOf(before, after), 'changed');
    const noise = comparePages(kept(['Posted 3 hours ago'], ['12 comments']), kept(['Posted 4 hours ago'], ['13 comments']));
    assert.deepEqual(
      noise.noise?.parts.map((part) => part.kind),
      ['relative time', 'counter'],
    );
  });

  it('compares a text kept without headings without them, and a changed heading is a change', () => {
    const old = [...PROSE].join('\n\n');
    const now = kept([]);
    assert.equal(splitPageText(old).headings, undefined);
    assert.deepEqual(comparePages(old, now), { changed: false });
    assert.equal(kindOf(kept([]), kept([], [], PROSE, { title: 'Park budget approved - Town Daily', headline: 'Park budget' })), 'changed');
    assert.equal(kindOf(kept([]), kept([], [], PROSE, { title: 'Park budget - Town Daily', headline: 'Park budget approved' })), 'changed');
  });

  it('reduces image addresses to the image, and masks tokens in links', () => {
    const image = (address: string) => kept([`![The park](${address})`]);
    assert.equal(kindOf(image('https://cdn.example.com/park.jpg?w=800&h=450'), image('https://cdn.example.com/park.jpg?w=1200&h=675')), 'asset address');
    assert.equal(kindOf(image('https://cdn.example.com/v1699999999/park.jpg'), image('https://cdn.example.com/v1700000000/park.jpg')), 'asset address');
    assert.equal(kindOf(image('https://cdn.example.com/park.3f9a1c2b7d.jpg'), image('https://cdn.example.com/park.8e0b44a1c9.jpg')), 'asset address');
    assert.equal(kindOf(image('https://cdn.example.com/park.jpg'), image('https://cdn.example.com/pond.jpg')), 'changed');
    assert.equal(kindOf(image('https://cdn.example.com/chart2024q1.png'), image('https://cdn.example.com/chart2024q2.png')), 'changed');
    assert.equal(kindOf(image('https://cdn.example.com/park.jpg'), image('https://other.example.com/park.jpg')), 'changed');
    const link = (address: string) => kept([], [`Read [the plan](${address}) first.`]);
    assert.equal(kindOf(link('https://example.com/plan?sid=9f86d081884c7d65'), link('https://example.com/plan?sid=2c26b46b68ffc68f')), 'link token');
    assert.equal(kindOf(link('https://example.com/plan?utm_source=mail'), link('https://example.com/plan?utm_source=feed')), 'link token');
    assert.equal(kindOf(link('https://example.com/plan?page=2'), link('https://example.com/plan?page=3')), 'changed');
    assert.equal(kindOf(link('https://example.com/p?item=blue-widget-12345'), link('https://example.com/p?item=red-widget-67890')), 'changed');
    assert.equal(kindOf(link('https://example.com/p?fbclid=IwAR3xY-k9_Zq2Lm8Pw'), link('https://example.com/p?fbclid=IwAR0aB_7cD-4eFgH1i')), 'link token');
    assert.equal(kindOf(link('https://example.com/p?clid=IJFsDqy8LCok1WVmNQW6'), link('https://example.com/p?clid=QrPufRlN6QhYXFhanZCV')), 'link token');
    assert.equal(kindOf(link('https://example.com/p?topic=Whole_Foods_Market'), link('https://example.com/p?topic=Amazon_Fresh_Stores')), 'changed');
    assert.equal(
      kindOf(link('https://example.com/p?s=3f2504e0-4f89-11d3-9a0c-0305e82c3301'), link('https://example.com/p?s=9b2c7d10-1a2b-4c3d-8e9f-0a1b2c3d4e5f')),
      'link token',
    );
  });

  it('keeps headings one line each, whatever they hold', () => {
    const text = pageText('Body', { title: 'A --> B\nC' });
    assert.equal(text.split('\n')[0], '<!-- title: A ‐‐> B C -->');
    assert.deepEqual(splitPageText(text), { headings: { title: 'A ‐‐> B C' }, body: 'Body' });
    // The headline the markdown shows as a heading is not repeated.
    assert.equal(pageText('# Park budget\n\nText', { title: 'T', headline: 'Park budget' }), '<!-- title: T -->\n\n# Park budget\n\nText');
  });

  it('reads hostile lines in linear time: a megabyte of brackets, digits and links', () => {
    const lines = [
      '!['.repeat(200_000),
      '['.repeat(500_000),
      '1,'.repeat(300_000),
      `[a](${'x'.repeat(100_000)}?${'a=b&'.repeat(50_000)})`,
      '](('.repeat(200_000),
      '[a](b "'.repeat(100_000),
      '(('.repeat(300_000),
    ];
    for (const line of lines) {
      const before = kept([line]);
      const after = kept([`${line}1`]);
      assert.equal(typeof comparePages(before, after).changed, 'boolean');
    }
  });

  it("settles a box of links replaced in place by the page's history: changed at each of the last two checks", () => {
    const boxed = (n: number, lines = 2) =>
      kept(
        [],
        [],
        [PROSE[0]!, ...Array.from({ length: lines }, (_, i) => `- [Other story ${n * 10 + i}](https://example.com/story/${n * 10 + i})`), PROSE[1]!],
      );
    const [t0, t1, t2, t3] = [0, 1, 2, 3].map((n) => boxed(n));
    const comparison = comparePages(t2!, t3!);
    assert.equal(comparison.changed, true);
    assert.equal(comparison.unsettled?.places.length, 1);
    const settled = settledByHistory(comparison, [diffMarkdown(t1!, t2!), diffMarkdown(t0!, t1!)]);
    assert.equal(settled.changed, false);
    assert.deepEqual(
      settled.noise?.parts.map((part) => part.kind),
      ['rotating part'],
    );
    // Not changed at one of those checks, or only one check behind it: still a change.
    assert.equal(settledByHistory(comparison, [diffMarkdown(t1!, t2!), null]).changed, true);
    assert.equal(settledByHistory(comparison, [diffMarkdown(t1!, t2!)]).changed, true);
    // Changed elsewhere at those checks: a change here.
    const elsewhere = diffMarkdown(kept(['Posted 1 hour ago']), kept(['Posted 2 hours ago']));
    assert.equal(settledByHistory(comparison, [elsewhere, elsewhere]).changed, true);
    // One link replaced is the news itself, never a box; nor is prose, whatever its history.
    assert.equal(comparePages(boxed(2, 1), boxed(3, 1)).unsettled, undefined);
    assert.equal(comparePages(kept([], [], [PROSE[0]!]), kept([], [], [PROSE[1]!])).unsettled, undefined);
  });
});
