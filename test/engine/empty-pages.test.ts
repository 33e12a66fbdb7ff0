/**
 * Pages that used to come back empty: content left in an unclosed <head>, an ad mark on the
 * page's wrapper, a gallery of hidden sections, a page without prose inside a wrapper named
 * like chrome. Parsed as convertPage parses (htmlparser2), cleaned, then made markdown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageMarkdown as markdown, prose } from '../helpers/content-markdown.js';

const BOTH = [
  { onlyMainContent: true, blockAds: true },
  { onlyMainContent: false, blockAds: false },
];

describe('pages that must not come back empty', () => {
  it('moves content out of a <head> that is never closed, as a browser does', () => {
    const html = `<!DOCTYPE html><html><head><title>Unclosed</title><meta charset="utf-8"><link rel="icon" href="/i.ico">
      <script>var x = 1;</script><style>p { color: red }</style>
      <div class="page"><h1>Report</h1><article>${prose('Report', 4)}</article></div>
      <footer>Footer line</footer></html>`;
    for (const options of BOTH) {
      const text = markdown(html, options);
      assert.match(text, /Report paragraph 0/, JSON.stringify(options));
      assert.match(text, /Report paragraph 3/);
      assert.ok(!text.includes('var x'), 'scripts and styles of the head stay out');
      assert.ok(!text.includes('color: red'));
      assert.ok(!text.includes('Unclosed'), 'the title stays metadata');
    }
    // A head that is closed keeps only what belongs in it; the body comes first, then what the head gave up.
    const closed = markdown(`<html><head><title>T</title></head><body>${prose('Closed', 2)}</body></html>`, BOTH[1]!);
    assert.match(closed, /Closed paragraph 1/);
  });

  it('never blocks as an ad an element that holds most of the page, nor the html or body', () => {
    const html = `<html class="js cookie-consent-enabled"><body class="cookie-banner-shown">
      <div class="wrapper has-cookie-consent"><article>${prose('Battery', 4)}</article>
      <div class="cookie-consent"><p>We use cookies. Accept them all or choose which.</p></div>
      <div data-ad-slot="top">Advertisement slot text</div></div></body></html>`;
    for (const onlyMainContent of [true, false]) {
      const text = markdown(html, { onlyMainContent, blockAds: true });
      assert.match(text, /Battery paragraph 0/, `onlyMainContent ${onlyMainContent}`);
      assert.match(text, /Battery paragraph 3/);
      assert.ok(!text.includes('We use cookies'), 'the consent banner itself still goes');
      assert.ok(!text.includes('Advertisement slot'), 'the ad slot still goes');
    }
  });

  it('keeps hidden sections that together hold most of the text (a gallery showing one at a time)', () => {
    const sections = Array.from({ length: 5 }, (_, i) => `<div id="section-${i}" class="slide" style="display: none;">${prose(`Slide ${i}`, 2)}</div>`).join(
      '',
    );
    const html = `<html><body><nav><a href="/">Home</a></nav><article><h1>Gallery</h1><p>Intro line.</p>${sections}</article>
      <div class="menu-popup" style="display:none">Popup menu</div></body></html>`;
    const text = markdown(html, { onlyMainContent: true, blockAds: true });
    for (let i = 0; i < 5; i++) assert.match(text, new RegExp(`Slide ${i} paragraph 1`));
    // One hidden block among visible prose still goes.
    const one = markdown(`<html><body><article>${prose('Visible', 4)}<div style="display:none">${prose('Hidden', 1)}</div></article></body></html>`, {
      onlyMainContent: true,
      blockAds: true,
    });
    assert.match(one, /Visible paragraph 3/);
    assert.ok(!one.includes('Hidden paragraph'));
    // Two hidden paragraphs between headings are not panels, even holding most of the text.
    const two = markdown(
      `<html><body><h1>Title</h1>${prose('Shown', 1)}<h2>A</h2><p style="display:none">Gone paragraph, with enough words, commas, and detail to read as prose rather than a caption.</p><h2>B</h2><p hidden>Away paragraph, with enough words, commas, and detail to read as prose rather than a caption.</p></body></html>`,
      { onlyMainContent: true, blockAds: true },
    );
    assert.match(two, /Shown paragraph 0/);
    assert.ok(!two.includes('Gone paragraph') && !two.includes('Away paragraph'));
  });

  it('keeps the text of a page without prose rather than sweeping it all away as chrome', () => {
    const lines = (word: string, n: number) => Array.from({ length: n }, (_, i) => `<div>${word} ${i}: open</div>`).join('');
    // The whole page sits in a wrapper named like a sidebar.
    const wrapped = markdown(`<html><body><div class="sidebar-layout"><h1>Opening hours</h1>${lines('Day', 6)}</div></body></html>`, BOTH[0]!);
    assert.match(wrapped, /Opening hours/);
    assert.match(wrapped, /Day 5: open/);
    // The text is split over blocks named like chrome, none of them most of the page.
    const split = markdown(
      `<html><body><div class="menu">${lines('Menu', 4)}</div><div class="footer">${lines('Shop', 4)}</div><div class="sidebar">${lines('Desk', 4)}</div><p>Hi</p></body></html>`,
      BOTH[0]!,
    );
    assert.match(split, /Shop 3: open/);
    assert.match(split, /Desk 3: open/);
    // With prose, chrome still goes.
    const withProse = markdown(`<html><body><div class="menu">${lines('Menu', 4)}</div><article>${prose('Story', 4)}</article></body></html>`, BOTH[0]!);
    assert.match(withProse, /Story paragraph 3/);
    assert.ok(!withProse.includes('Menu 1'));
  });
});
