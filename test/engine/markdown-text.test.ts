/**
 * Markdown that reads as the page does: a link that only runs script keeps its text and loses
 * its URL (which would put `javascript:` into the markdown), and ruby keeps its text, not the
 * readings printed above it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertPage } from '../../src/engine/scrape/convert.js';

const markdownOf = async (html: string) =>
  (
    await convertPage(
      { body: Buffer.from(`<html><body><main>${html}</main></body></html>`), contentType: 'text/html', finalUrl: 'https://example.com/' },
      { onlyMainContent: false },
      ['markdown'],
    )
  ).markdown;

describe('markdown text', () => {
  it('keeps the text of a javascript: link, not its URL, however it is written or nested', async () => {
    const markdown = await markdownOf(
      `<p>Click <a href=" JavaScript:alert(1)">here <b>now</b></a>, or <a href="javascript:a()"><a href="javascript:b()">nested</a></a>, or <a href="/page">a real link</a>.</p>`,
    );
    assert.equal(markdown, 'Click here **now**, or nested, or [a real link](https://example.com/page).');
    assert.doesNotMatch(markdown, /javascript/i);
  });

  it('does so for every such link of a paragraph, in order, however many', async () => {
    const count = 50_000;
    const markdown = await markdownOf(`<p>${Array.from({ length: count }, (_, i) => `${i}<a href="javascript:void(0)">w</a>`).join('')}</p>`);
    assert.equal(markdown, Array.from({ length: count }, (_, i) => `${i}w`).join(''));
  });

  it('keeps every link of a paragraph of 50,000 side by side, each with its URL and no space the page does not show', async () => {
    const count = 50_000;
    const markdown = await markdownOf(`<p>${Array.from({ length: count }, (_, i) => `${i}<a href="/p${i}">w</a>`).join('')}</p>`);
    assert.equal(markdown, Array.from({ length: count }, (_, i) => `${i}[w](https://example.com/p${i})`).join(''));
  });

  it('reads ruby as its text, without the readings (furigana) run into it', async () => {
    const markdown = await markdownOf('<p><ruby>子<rt>こ</rt></ruby>どもへの<ruby>虐待<rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby>をなくす</p>');
    assert.equal(markdown, '子どもへの虐待をなくす');
  });
});
