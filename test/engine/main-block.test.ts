/**
 * Which block of a page is its article, when another block holds more text: a consent dialog
 * listing every tracker of the site, around an article whose class says it was promoted; a
 * notice with a close button, a shorter block beside an article that holds related links; and
 * which blocks around it are its parts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageMarkdown, prose } from '../helpers/content-markdown.js';

/** A consent dialog's long text: services, their purposes and processing, one after another. */
const consent = Array.from(
  { length: 12 },
  (_, i) =>
    `<div class="service"><p>Service ${i}, purpose: statistics, processing of connection data, browser data, and the pages visited, by the provider and its partners.</p></div>`,
).join('');

describe('the main block', () => {
  it("is not a cookie dialog that holds most of the page's text, even one named like a layout", () => {
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
    const part = (n: number) =>
      `<section class="page-section"><div class="section-inner"><article class="image-text"><img src="/p${n}.jpg" alt=""><header class="description"><div class="richtext">${prose(`Part ${n}`, n === 1 ? 4 : 3)}</div></header></article></div></section>`;
    const text =
      pageMarkdown(`<html><body><nav><a href="/">Home</a></nav><main><div class="box"><h1>Europe's best athletes</h1>${[1, 2, 3].map(part).join('')}</div></main>
      <footer><p>Site footer, with enough words, commas, and detail to read as prose, but chrome.</p></footer></body></html>`);
    for (const n of [1, 2, 3]) assert.match(text, new RegExp(`Part ${n} paragraph 2`), text);
    assert.doesNotMatch(text, /Site footer/);
  });

  it('takes the whole thread when the post that scores best is one of several like it', () => {
    const post = (n: number, paragraphs: number) =>
      `<article class="message message--post"><div class="message-inner"><div class="message-cell"><div class="message-main"><div class="message-content"><div class="user-content"><article class="message-body"><div class="bb">${prose(`Post ${n}`, paragraphs)}</div></article></div></div></div></div></div></article>`;
    const text =
      pageMarkdown(`<html><body><main><h1>Our cat sheds dirt every night</h1><div class="block-body">${post(1, 2)}${post(2, 4)}${post(3, 2)}</div></main>
      <aside class="cards">${[1, 2, 3].map((n) => `<div class="card"><h3><a href="/t/${n}">Another thread ${n}</a></h3><p>Teaser of another thread, short.</p></div>`).join('')}</aside></body></html>`);
    for (const n of [1, 2, 3]) assert.match(text, new RegExp(`Post ${n} paragraph 1`), text);
    assert.doesNotMatch(text, /Another thread/);
  });

  it('of a discussion whose posts are all named as comments, is the posts; an article keeps its comments out', () => {
    const post = (n: number) =>
      `<div class="forum-comment"><span class="author">user${n}</span><p>Post ${n}: since the update the app store no longer loads over mobile data, and the settings look the same as before.</p></div>`;
    const thread = pageMarkdown(
      `<html><body><nav><a href="/">Forum</a></nav><main><h1>App store over mobile data</h1>${[1, 2, 3, 4].map(post).join('')}</main></body></html>`,
    );
    for (const n of [1, 2, 3, 4]) assert.match(thread, new RegExp(`Post ${n}: since the update`));
    const article = pageMarkdown(`<html><body><main><article><h1>Ferry fares</h1>${prose('Fares', 3)}</article>
      <section class="comments">${[1, 2, 3, 4].map(post).join('')}</section></main></body></html>`);
    assert.match(article, /Fares paragraph 2/);
    assert.doesNotMatch(article, /Post 2: since the update/);
  });

  it('does not take cards like the article that hold links, not prose', () => {
    const card = (n: number) =>
      `<div class="story"><h2><a href="/s/${n}">Story ${n} headline</a></h2><p><a href="/s/${n}">Read the story about item ${n} and more</a></p></div>`;
    const text = pageMarkdown(
      `<html><body><main><div class="stories"><div class="story"><h1>The story</h1>${prose('Story', 4)}</div>${card(2)}${card(3)}${card(4)}</div></main></body></html>`,
    );
    assert.match(text, /Story paragraph 3/);
    assert.doesNotMatch(text, /Story 2 headline/);
  });

  it("of stories one after another, is the one the page's title names, not the longest", () => {
    const story = (title: string, topic: string, n: number) =>
      `<div class="scrollblock"><article class="entry"><header><h1>${title}</h1></header><div class="entry-text">${prose(topic, n)}</div></article></div>`;
    const html = (title: string) =>
      `<html><head><title>Daily News | ${title}</title></head><body><main>${story('Blessing of vehicles this Saturday', 'Blessing', 3)}${story('Prosecutors under pressure from parties', 'Prosecutors', 9)}</main></body></html>`;
    const text = pageMarkdown(html('Blessing of vehicles this Saturday'));
    assert.match(text, /^# Blessing of vehicles this Saturday/);
    assert.match(text, /Blessing paragraph 2/);
    assert.doesNotMatch(text, /Prosecutors paragraph/);
    // Titled after the longer one, or after neither: the longer story, as before.
    assert.match(pageMarkdown(html('Prosecutors under pressure from parties')), /Prosecutors paragraph 8/);
    assert.match(pageMarkdown(html('Something else entirely, not on the page')), /Prosecutors paragraph 8/);
  });

  it('is not a notice with a close button of its own, though its one paragraph scores more', () => {
    const notice =
      '<p>Delivery by courier, within two to three days, insured, tracked, signed for, in boxes of six, twelve, or eighteen bottles, to the door, the office, a neighbour, or a parcel shop, free from 60 euros, otherwise 5.90 euros, to any address in the country.</p>';
    const text = pageMarkdown(`<html><body><div id="delivery-info"><div class="close">Close [X]</div>${notice}</div>
      <div class="col"><h1>Rioja</h1><div class="text">${prose('Rioja', 2)}</div></div></body></html>`);
    assert.match(text, /Rioja paragraph 1/);
    assert.doesNotMatch(text, /Delivery by courier/);
  });

  it("keeps the article around a notice whose close button is the notice's, not the article's", () => {
    const text = pageMarkdown(`<html><body><main><div class="story"><h1>Rioja</h1>
      <div class="notice"><button class="btn-close">Close</button><p>We use cookies to count visits, and nothing else, on this site.</p></div>
      ${prose('Rioja', 3)}</div></main></body></html>`);
    assert.match(text, /^# Rioja/);
    assert.match(text, /Rioja paragraph 2/);
    assert.doesNotMatch(text, /We use cookies/);
  });

  it('takes in the parts of a recipe that are not prose, in a block without links around its steps', () => {
    const ingredients = [
      '250 g flour',
      '125 g butter',
      '100 g sugar',
      '2 eggs',
      '1 pinch of salt',
      '1 lemon, grated',
      '200 g cream cheese',
      '3 tbsp milk',
      '1 tsp baking powder',
      '50 g almonds',
      '1 vanilla pod',
      '2 tbsp jam',
      'icing sugar',
    ];
    const page = (extra: string) =>
      pageMarkdown(`<html><body><nav><a href="/">Recipes</a> <a href="/cakes">Cakes</a></nav>
      <div class="recipe"><div class="steps"><h2>Preparation</h2>${prose('Step', 4)}</div>
      <div class="ingredients"><h3>Ingredients</h3><ul>${ingredients.map((line) => `<li>${line}</li>`).join('')}</ul></div>${extra}</div>
      <footer><p>Site footer, with enough words, commas, and detail to read as prose, but chrome.</p></footer></body></html>`);
    const text = page('');
    assert.match(text, /Step paragraph 3/);
    assert.match(text, /200 g cream cheese/);
    assert.doesNotMatch(text, /Site footer/);
    // A block adding more than as much again is not the article's part: the steps stay alone.
    const archive = Array.from({ length: 60 }, (_, i) => `<div>Shopping list ${i}</div>`).join('');
    const alone = page(`<div class="archive">${archive}</div>`);
    assert.match(alone, /Step paragraph 3/);
    assert.doesNotMatch(alone, /Shopping list 7/);
  });

  it('is the article holding a box of related links, not a shorter block beside it', () => {
    const related = Array.from({ length: 15 }, (_, i) => `<li><a href="/r/${i}">A related story about something else entirely</a></li>`).join('');
    const text = pageMarkdown(`<html><body>
      <div class="story"><h1>Bakery reopens</h1>${prose('Bakery', 3)}<div class="related-posts"><ul>${related}</ul></div></div>
      <div class="box"><p>Our shop, open daily, sells cakes, bread, coffee, tea, and gifts, in the old town.</p><p>Opening hours are on the door, next to the bell.</p></div></body></html>`);
    assert.match(text, /^# Bakery reopens/);
    assert.match(text, /Bakery paragraph 2/);
    // The related links themselves still go.
    assert.doesNotMatch(text, /A related story/);
  });

  it("does not take in a layout table's side column beside the cell that holds the article", () => {
    const text = pageMarkdown(`<html><body><table><tr>
      <td id="leftcolumn">${['Home', 'Club', 'Events', 'Teams', 'Gallery', 'Contact'].map((name) => `<div><a href="/${name.toLowerCase()}">${name}</a></div>`).join('')}<div><b>Members only</b></div><div>12 visitors online</div></td>
      <td id="centercolumn"><div id="content"><h1>Spring assembly</h1>${prose('Assembly', 4)}</div></td>
      </tr></table></body></html>`);
    assert.match(text, /Assembly paragraph 3/);
    assert.doesNotMatch(text, /Members only|visitors online/);
  });

  it("is an article named for the paywall it is behind, not the whole page, and the paywall's prompt goes", () => {
    // A menu long enough that the article is not most of the page's text.
    const menu = [
      'News',
      'Politics',
      'Economy',
      'Sport',
      'Football',
      'Ice hockey',
      'Culture',
      'Society',
      'Weather',
      'Jobs',
      'Real estate',
      'Events',
      'Galleries',
      'Videos',
    ]
      .map((name) => `<li><a href="/${name.toLowerCase()}">${name}</a></li>`)
      .join('');
    const text = pageMarkdown(`<html><body><div class="top"><ul>${menu}</ul></div>
      <div id="article" class="story isPaywall"><figure><img src="/round.jpg" alt=""><figcaption>At the round table</figcaption></figure><div class="content"><p>The centre invited employers to a round table, where they discussed how to find enough staff in times of shortage, and what keeps them ...</p></div></div>
      <div class="paywall-template-container"><div id="paywall_title"><h1>Want to read on?</h1></div><div id="paywall_left"><h2>Yes, I am a subscriber.</h2><a href="/login">Log in</a></div></div>
      </body></html>`);
    assert.match(text, /The centre invited employers/);
    assert.doesNotMatch(text, /Weather|Want to read on|I am a subscriber/);
  });

  it('of a post of a few short lines is the block named as the post, not the whole page with its sidebar and comment form', () => {
    const widget = 'The content of this website is licensed under a Creative Commons licence.';
    const text = pageMarkdown(`<html><body><div id="wrapper"><div id="header"><h1><a href="/">Notebook</a></h1></div>
      <div id="content"><div class="post-406 post" id="post-406"><h2>Doing nothing is a choice too</h2>
        <p>"I know I am drunk and should not say it..."</p><p>- "Then do not say it."</p><p>- "Ok."</p></div>
        <div class="comment-respond" id="respond"><h3 id="reply-title">Leave a comment</h3><p>Fill in your details below or click an icon to log in.</p><form><textarea name="comment"></textarea></form></div></div>
      <div id="sidebar"><ul><li class="widget"><div class="textwidget">${widget}</div></li>
        <li class="widget"><h2 class="widgettitle">Categories</h2><ul><li><a href="/c/1">Specific</a></li><li><a href="/c/2">General</a></li></ul></li>
        <li class="widget"><h2 class="widgettitle">Archive</h2><ul>${['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].map((month, i) => `<li><a href="/2013/${i + 1}">${month} 2013</a></li>`).join('')}</ul></li></ul></div>
      </div></body></html>`);
    assert.match(text, /I know I am drunk/);
    assert.doesNotMatch(text, /Leave a comment|licensed under|Categories/);
  });

  it("drops a flagged box with a line of text from a core of short lines, where any prose is on the core's scale", () => {
    const text = pageMarkdown(`<html><body><article class="post"><h1>Film swap, April</h1><div class="entry-content">
      <p>Shot on Fuji X-TRA 400 by both of us, in turn.</p><h3>Order of exposures</h3><p>Shuji first, then Walter, a week later.</p>
      <div class="sharedaddy sd-block"><h3>Like this:</h3><div class="likes-widget-placeholder">Like this post. Loading the readers' likes...</div></div>
      </div></article></body></html>`);
    assert.match(text, /Shuji first, then Walter/);
    assert.doesNotMatch(text, /Like this|Loading the readers/);
  });

  it('a column beside the titled header is the article, not a story of its own', () => {
    const text = pageMarkdown(`<html><head><title>Young drivers wreck two cars in one night - TV</title></head><body><main>
      <div class="col"><h1>Young drivers wreck two cars in one night</h1><div class="gallery"><figure><img src="/1.jpg" alt=""><figcaption>1/2 The car hit a guardrail late on Friday, police said.</figcaption></figure></div></div>
      <div class="col"><div class="text">${prose('Crash', 4)}</div></div></main></body></html>`);
    assert.match(text, /Crash paragraph 3/);
  });

  it('reads no word into a generated class name: a rebuilt hash that ends in "ad" takes nothing out', () => {
    for (const name of ['css-znm2ad', 'Purebutton_pure-button__lz3ad', 'Body_emphasis__x9ad']) {
      const markdown = pageMarkdown(
        `<main><article>${prose('Council', 3)}<p>Residents spoke, and <em class="${name}">the mayor answered every question</em> at length.</p>${prose('Budget', 2)}</article></main>`,
      );
      assert.match(markdown, /the mayor answered every question/, name);
    }
  });
});
