/**
 * Which block of a page is its article, when another block holds more text: a consent dialog
 * listing every tracker of the site, around an article whose class says it was promoted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageMarkdown, prose } from '../helpers/content-markdown.js';

/** A consent dialog's long text: services, their purposes and processing, one after another. */
const consent = Array.from({ length: 12 }, (_, i) => `<div class="service"><p>Service ${i}, purpose: statistics, processing of connection data, browser data, and the pages visited, by the provider and its partners.</p></div>`).join('');

describe('the main block', () => {
  it('is not a cookie dialog that holds most of the page\'s text, even one named like a layout', () => {
    const text = pageMarkdown(`<html><body>
      <div class="privacy-popup"><div class="privacy-content"><h2>Your privacy</h2>${consent}</div></div>
      <main><article class="node node--type-article node--promoted"><h1>Wine exports grow</h1>${prose('Exports', 6)}</article></main>
      </body></html>`);
    assert.match(text, /^# Wine exports grow/);
    assert.match(text, /Exports paragraph 5/);
    assert.doesNotMatch(text, /Service 3, purpose/);
  });

  it('a page laid out inside a block named for chrome still has its article found there', () => {
    const text = pageMarkdown(`<html><body><div class="sidebar_content">
      <div class="col-main"><h1>Harbour reopens</h1>${prose('Harbour', 4)}</div>
      <div class="col-side"><p>Short side note.</p></div></div></body></html>`);
    assert.match(text, /Harbour paragraph 3/);
  });

  it('takes every part of a story told in sections, each an <article> in wrappers of its own', () => {
    const part = (n: number) => `<section class="page-section"><div class="section-inner"><article class="image-text"><img src="/p${n}.jpg" alt=""><header class="description"><div class="richtext">${prose(`Part ${n}`, n === 1 ? 4 : 3)}</div></header></article></div></section>`;
    const text = pageMarkdown(`<html><body><nav><a href="/">Home</a></nav><main><div class="box"><h1>Europe's best athletes</h1>${[1, 2, 3].map(part).join('')}</div></main>
      <footer><p>Site footer, with enough words, commas, and detail to read as prose, but chrome.</p></footer></body></html>`);
    for (const n of [1, 2, 3]) assert.match(text, new RegExp(`Part ${n} paragraph 2`), text);
    assert.doesNotMatch(text, /Site footer/);
  });
});
