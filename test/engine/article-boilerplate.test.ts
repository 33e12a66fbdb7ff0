/**
 * Boilerplate inside or right after an article, each pattern on a small page of its own:
 * what goes (credits, bylines, dates, author boxes, "Read also" links, tags, labels and
 * headings left after the last paragraph) and, beside it, what must stay (captions, the
 * title, sentences, lists, paragraphs with a link in them).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageMarkdown, prose as shortProse } from '../helpers/content-markdown.js';

/** Paragraphs long enough (over 100 characters) to mark where an article's prose runs. */
const prose = (topic: string, n: number) => shortProse(topic, n).replaceAll('</p>', ' It goes on for a while, as stories do.</p>');

function page(article: string, after = ''): string {
  return `<html><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
    <main><article>${article}</article>${after}</main>
    <footer><p>Site footer, with enough words, commas, and detail to read as prose, but chrome.</p></footer></body></html>`;
}

describe('boilerplate inside an article', () => {
  it('drops a "read also" paragraph that is a link to another story, keeps a paragraph with a link in it', () => {
    const text = pageMarkdown(
      page(`<h1>Harbour reopens</h1>${prose('Harbour', 2)}
        <p><strong>Read also:</strong> <a href="/other-story">Ferry fares rise again for the third year in a row</a></p>
        <p>The harbour master, quoted in <a href="/interview">an interview</a>, said the quay had been rebuilt over two winters, at a cost nobody expected.</p>
        ${prose('Quay', 2)}`),
    );
    assert.doesNotMatch(text, /Ferry fares rise again/);
    assert.match(text, /The harbour master, quoted in \[an interview\]/);
    assert.match(text, /Quay paragraph 1/);
  });

  it('keeps a paragraph wrapped in a named anchor, which links nowhere; drops a "read also" link beside it', () => {
    const text = pageMarkdown(
      page(`<h1>Harbour questions</h1>${prose('Harbour', 2)}
        <p><a name="sundays">One of the questions readers ask most: is the harbour open on Sundays?</a></p>
        <p>Read also: <a href="/other-story">Ferry fares rise again for the third year in a row</a></p>
        ${prose('Quay', 2)}`),
    );
    assert.match(text, /is the harbour open on Sundays\?/);
    assert.doesNotMatch(text, /Ferry fares rise again/);
  });

  it('keeps a paragraph that is only an e-mail address or a phone number to write to; drops a "read also" link beside it', () => {
    const text = pageMarkdown(
      page(`<h1>Strike committee</h1>${prose('Strike', 2)}
        <p><a href="mailto:committee@example.org">committee@example.org</a></p>
        <p><a href="tel:+15550100">+1 555 0100</a></p>
        <p>Read also: <a href="/other-story">Ferry fares rise again for the third year in a row</a></p>
        ${prose('Meeting', 2)}`),
    );
    assert.match(text, /committee@example\.org/);
    assert.match(text, /\+1 555 0100/);
    assert.doesNotMatch(text, /Ferry fares rise again/);
  });

  it('drops the photo credit, keeps the caption and the picture', () => {
    const text = pageMarkdown(
      page(`<h1>Neon</h1><figure><img src="/neon.jpg" alt="A neon sign"><figcaption>The sign above the cabaret at night
        <span class="photo-credit">Jane Doe/Agency</span></figcaption></figure>${prose('Neon', 3)}
        <div class="copyright-notice">© 2024 Example Media. All rights reserved.</div>`),
    );
    assert.match(text, /The sign above the cabaret at night/);
    assert.match(text, /!\[A neon sign\]/);
    assert.doesNotMatch(text, /Jane Doe/);
    assert.doesNotMatch(text, /All rights reserved/);
  });

  it('drops a short copyright line without a class, keeps a long paragraph that mentions ©', () => {
    const long =
      'The symbol © has marked protected works since 1909, and this paragraph, long enough to be prose, discusses its history in the courts, with commas, dates, and more.'.repeat(
        2,
      );
    const text = pageMarkdown(page(`<h1>Signs</h1>${prose('Signs', 3)}<p>${long}</p><p>Photo © Jane Doe</p>`));
    assert.match(text, /has marked protected works since 1909/);
    assert.doesNotMatch(text, /Photo © Jane Doe/);
  });

  it('drops the byline, the dateline and the "updated" note, keeps the title in the same header block', () => {
    const text = pageMarkdown(
      page(`<div class="entry-meta"><h1>Storm closes schools</h1><span>Local news</span></div>
        <div class="byline">By STAFF REPORTER</div><div class="dateline">NOVEMBER 20, 2019 10:43</div>
        <p class="updated">Updated at 1:23 p.m.</p>${prose('Storm', 3)}
        <p><span class="dateline">KOBE –</span> A total of 6,000 masks were handed out on Monday, the city said, with more to come this week.</p>`),
    );
    assert.match(text, /# Storm closes schools/);
    assert.doesNotMatch(text, /STAFF REPORTER/);
    assert.doesNotMatch(text, /NOVEMBER 20, 2019/);
    assert.doesNotMatch(text, /Updated at 1:23/);
    // A dateline inside a paragraph is part of its first sentence.
    assert.match(text, /KOBE – A total of 6,000 masks/);
  });

  it('drops the author box under the article', () => {
    const text = pageMarkdown(
      page(
        `<h1>Gardens</h1>${prose('Garden', 4)}<div class="author-bio"><img src="/me.jpg" alt=""><p>Sam writes about gardens, bees and the weather, and has done so for twenty years, mostly in the rain.</p></div>`,
      ),
    );
    assert.match(text, /Garden paragraph 3/);
    assert.doesNotMatch(text, /Sam writes about gardens/);
  });

  it('drops tags, ratings and disclaimers', () => {
    const text = pageMarkdown(
      page(`<h1>Bread</h1>${prose('Bread', 4)}
        <div class="post-tags">Tags: <a href="/t/bread">bread</a>, <a href="/t/baking">baking</a></div>
        <div class="post-ratings">Was this article useful? (No ratings yet)</div>
        <p class="affiliate-disclaimer">Links marked with an asterisk are affiliate links, and we may earn a commission.</p>`),
    );
    assert.match(text, /Bread paragraph 3/);
    assert.doesNotMatch(text, /Tags:/);
    assert.doesNotMatch(text, /No ratings yet/);
    assert.doesNotMatch(text, /affiliate links/);
  });

  it("drops an advertisers' disclosure, an affiliate note and an appendix with the citation, keeps the article", () => {
    const text = pageMarkdown(
      page(`<h1>Cards</h1><section class="editorial-disclosure"><p>This post contains references to products of our advertisers, who may pay us when you buy them.</p></section>
        ${prose('Cards', 4)}
        <div class="affiliate-text"><p>Our independent experts test products regularly; we earn money when you buy through our links, which does not change our verdict.</p></div>
        <div class="appendix"><p>Suggested citation: Author, Cards, in The Blog of Cards and Games, 2020, https://example.org/cards, as read on the day of the visit.</p></div>`),
    );
    assert.match(text, /Cards paragraph 1/);
    assert.match(text, /Cards paragraph 3/);
    assert.doesNotMatch(text, /advertisers/);
    assert.doesNotMatch(text, /independent experts/);
    assert.doesNotMatch(text, /Suggested citation/);
  });

  it("drops a notice that the post is the author's opinion, a medical reviewer's note and a contact box, keeps the article", () => {
    const text = pageMarkdown(
      page(`<h1>Culture</h1>${prose('Culture', 3)}
        <div class="community-notice"><p>This post gives the opinion of its author, not necessarily that of the editors of this paper.</p></div>
        ${prose('Theatre', 2)}
        <div class="article-reviewed"><p>This text follows the medical literature and guidelines of the day and was checked by doctors.</p></div>
        ${prose('Music', 2)}
        <div class="contact-body"><address><span>Inn by the Castle, the Miller family</span> <a href="tel:+390473668056">+39 0473 668056</a></address></div>`),
    );
    assert.match(text, /Culture paragraph 2/);
    assert.match(text, /Theatre paragraph 1/);
    assert.match(text, /Music paragraph 1/);
    assert.doesNotMatch(text, /opinion of its author/);
    assert.doesNotMatch(text, /checked by doctors/);
    assert.doesNotMatch(text, /Miller family/);
  });

  it('drops a related-stories box in the middle of the text', () => {
    const text = pageMarkdown(
      page(
        `<h1>Rail</h1>${prose('Rail', 2)}<div class="related-story"><h3>Related</h3><a href="/a">Trains late again</a><p>Commuters wait, again, on the platform.</p></div>${prose('Track', 2)}`,
      ),
    );
    assert.match(text, /Rail paragraph 1/);
    assert.match(text, /Track paragraph 1/);
    assert.doesNotMatch(text, /Trains late again/);
  });

  it('drops share buttons drawn by a share plugin, a box of app-store links and a slide-in appeal, keeps the text around them', () => {
    const text = pageMarkdown(
      page(`<h1>Hills</h1>${prose('Hills', 2)}
        <div class="shariff"><div class="ShariffHeadline"><h5>Share it now!</h5></div><ul class="shariff-buttons"><li><a href="https://www.facebook.com/sharer/sharer.php?u=x" title="Share"><span class="fab"></span></a></li></ul></div>
        <div class="appstores"><h3>Read our magazine digitally, in our app for your phone and tablet, at any time of day.</h3></div>
        <div class="c-flyout"><p>Every small gift helps the people of this world who need it the most, so give today!</p></div>
        ${prose('Valleys', 2)}`),
    );
    assert.match(text, /Hills paragraph 1/);
    assert.match(text, /Valleys paragraph 1/);
    assert.doesNotMatch(text, /Share it now/);
    assert.doesNotMatch(text, /in our app/);
    assert.doesNotMatch(text, /small gift/);
  });
});

describe('ids of headings', () => {
  it('keeps a subheading whose id spells its words, even with a word of chrome in front; drops a heading named for navigation', () => {
    const text = pageMarkdown(
      page(`<h1>Recycling foil</h1>${prose('Foil', 2)}<h3 class="subheading" id="nav_only_the_foil_remains_1">Only the foil remains</h3>
        ${prose('Press', 2)}<h3 id="nav-widget">Browse the sections</h3>${prose('Bale', 2)}`),
    );
    assert.match(text, /### Only the foil remains/);
    assert.match(text, /Bale paragraph 1/);
    assert.doesNotMatch(text, /Browse the sections/);
  });
});

describe('tables of links', () => {
  it('keeps a table with header cells whose cells are links, drops a table of links without them', () => {
    const text = pageMarkdown(
      page(`<h1>Install</h1>${prose('Install', 2)}
        <table><thead><tr><th>Platform</th><th>x86_64</th><th>arm64</th></tr></thead><tbody>
        <tr><td><a href="/desktop/mac">Desktop for Mac</a></td><td><a href="/desktop/mac">yes</a></td><td><a href="/desktop/mac">yes</a></td></tr>
        <tr><td><a href="/desktop/windows">Desktop for Windows</a></td><td><a href="/desktop/windows">yes</a></td><td></td></tr></tbody></table>
        ${prose('Server', 2)}
        <table><tr><td><a href="/timetables">Timetables</a></td><td><a href="/fares">Fares and tickets</a></td></tr></table>
        ${prose('Support', 2)}`),
    );
    for (const kept of ['Desktop for Mac', 'Desktop for Windows', 'Support paragraph 1']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
    assert.doesNotMatch(text, /Fares and tickets/);
  });

  it('keeps a block around such a table, drops a list of links beside it in that block', () => {
    const text = pageMarkdown(
      page(`<h1>Child seats</h1>${prose('Seats', 2)}
        <div class="basic-text"><table><thead><tr><th>Model</th><th>Price</th></tr></thead><tbody>
        <tr><td><a href="/seat/koos">Koos i-Size</a></td><td>370 EUR</td></tr><tr><td><a href="/seat/kidfix">Kidfix XP</a></td><td>199 EUR</td></tr></tbody></table>
        <ul><li><a href="/tests">All our tests</a></li><li><a href="/newsletter">Newsletter</a></li></ul></div>
        ${prose('Isofix', 2)}`),
    );
    for (const kept of ['Koos i-Size', '370 EUR', 'Kidfix XP', 'Isofix paragraph 1']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
    assert.doesNotMatch(text, /All our tests/);
  });
});

describe('a list of related stories with their excerpts', () => {
  it('drops it even when its excerpts hold as much prose as the article', () => {
    const excerpt = (n: number) =>
      `<li><a href="/story-${n}">Other story ${n}</a><small>An excerpt of another story, long enough to read as prose, with commas, names, and places in it, number ${n}.</small></li>`;
    const text = pageMarkdown(page(`<h1>Bridge</h1>${prose('Bridge', 2)}<ul class="related_post">${[1, 2, 3].map(excerpt).join('')}</ul>`));
    assert.match(text, /Bridge paragraph 1/);
    assert.doesNotMatch(text, /An excerpt of another story/);
    assert.doesNotMatch(text, /Other story 2/);
  });
});

describe('captions', () => {
  it("drops the caption of a picture outside the article's body, keeps the pictures and a caption among its paragraphs", () => {
    const text = pageMarkdown(`<html><body><main><article><h1>Glacier</h1>
      <figure><img src="/lead.jpg" alt="The glacier from above"><figcaption>The glacier seen from the ridge, in a photo taken last spring by the survey team.</figcaption></figure>
      <div class="story-body">${prose('Glacier', 3)}<figure><img src="/map.png" alt="Map"><figcaption>Where the ice stood in 1900 and where it stands today.</figcaption></figure>${prose('Ice', 3)}</div>
      </article></main></body></html>`);
    assert.match(text, /Glacier paragraph 2/);
    assert.match(text, /!\[The glacier from above\]/);
    assert.doesNotMatch(text, /seen from the ridge/);
    assert.match(text, /Where the ice stood in 1900/);
  });
});

describe('headings of link lists', () => {
  it('drops the heading of a list of links in a box, keeps a heading whose section goes on in prose', () => {
    const text = pageMarkdown(
      page(`<h1>Ferries</h1>${prose('Ferry', 2)}
        <section><h3>More stories from the harbour and the coast</h3><ul><li><a href="/a">Fares rise</a></li><li><a href="/b">Pier opens</a></li><li><a href="/c">Strike ends</a></li></ul></section>
        ${prose('Crossing', 2)}
        <h2>Timetable</h2><div><a href="/timetable">Main article: Ferry timetable</a></div>${prose('Timetable', 2)}`),
    );
    for (const gone of ['More stories from the harbour', 'Fares rise']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['Crossing paragraph 1', '## Timetable', 'Timetable paragraph 1']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('a line kept beside the article for its place', () => {
  it('drops it when it is an aside (an author note), keeps the title beside it', () => {
    const text = pageMarkdown(`<html><body><div id="page"><h1>Heat wave</h1>
      <div class="author-bio">About the author: Jane Doe writes on the weather.</div>
      <div class="story">${prose('Heat', 3)}</div>
      <ul><li>Weather</li><li>Climate</li><li>Summer</li><li>Health</li><li>Cities</li><li>Rivers</li><li>Forests</li><li>Farming</li><li>Transport</li><li>Energy</li></ul>
      </div></body></html>`);
    assert.match(text, /# Heat wave/);
    assert.match(text, /Heat paragraph 2/);
    assert.doesNotMatch(text, /Jane Doe writes/);
  });
});

describe('a teaser card inside an article', () => {
  it('drops a box with a heading linking elsewhere and a line under it among the paragraphs, keeps such a heading before the prose and long sections', () => {
    const long = 'The second part, with enough words, commas, and detail to read as prose. '.repeat(6);
    const text = pageMarkdown(
      page(`<div class="body"><div class="post-head"><h2><a href="/2024/ferry-timetable">Ferry timetable changes</a></h2><span>Posted on March 3, 2024, by Jo Smith</span></div>
        ${prose('Ferry', 3)}
        <div class="teaser"><h2><a href="/virus-podcast">What you need to know about the virus</a></h2><p>Every week, a virologist answers questions.</p></div>
        ${prose('Quay', 2)}<div class="part"><h2><a href="/part-two">Part two</a></h2><p>${long}</p></div>${prose('Pier', 2)}</div>`),
    );
    for (const gone of ['What you need to know', 'a virologist answers']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['Ferry timetable changes', 'Quay paragraph 1', 'Part two', 'The second part', 'Pier paragraph 1'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('a box around a button link inside an article', () => {
  it('drops a small box with a button link, keeps share icons beside a lead and a paragraph with an ordinary link', () => {
    const text = pageMarkdown(
      page(`<h1>Harbour festival</h1><div class="body">
        <div class="lead"><p>The harbour festival returns this summer, with boats, music, food stalls, and fireworks over the water.</p>
        <a class="btn share-whatsapp" href="https://wa.me/?text=festival">WhatsApp</a></div>${prose('Festival', 3)}
        <div class="offer"><div class="offer-title">Our newspaper</div><p>Read every story first, on any device.</p>
        <a class="button-primary" href="/subscribe">Subscribe now</a></div>
        <p>Tickets are sold at <a href="/tickets">the harbour office</a>, which opens at nine.</p>${prose('Music', 2)}</div>`),
    );
    for (const gone of ['Our newspaper', 'Read every story first', 'Subscribe now']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['The harbour festival returns', 'Tickets are sold at', 'Music paragraph 1'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('keeps a lead beside a bar of share buttons named as such, drops an offer box with a button link', () => {
    const text = pageMarkdown(
      page(`<h1>Haylage</h1><div class="body">
        <div class="lead"><p>Haylage has a worse name than it deserves among horse owners, and not for good reasons.</p>
        <div class="social-sharing-buttons"><a class="btn btn-whatsapp" href="whatsapp://send?text=haylage">WhatsApp</a></div></div>${prose('Hay', 3)}
        <div class="offer"><p>Read every story first, on any device.</p><a class="button-primary" href="/subscribe">Subscribe now</a></div>
        ${prose('Feed', 2)}</div>`),
    );
    assert.match(text, /Haylage has a worse name/);
    for (const gone of ['Read every story first', 'Subscribe now']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
  });

  it('keeps a price and its stock beside a button link, with no paragraph', () => {
    const text = pageMarkdown(
      page(`<h1>Kettle</h1><div class="body">${prose('Kettle', 3)}
        <div class="buy"><p>19.90 EUR</p><p>In stock</p><a class="btn-cart" href="/cart/add/17">Add to cart</a></div>${prose('Cord', 2)}</div>`),
    );
    for (const kept of ['19.90 EUR', 'In stock', 'Cord paragraph 1']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('lines of a box inside an article', () => {
  it('drops a <div> holding only a label or a line of links, keeps a <div> sentence, a <div> list item and a linked paragraph', () => {
    const text = pageMarkdown(
      page(`<h1>Ferry</h1>${prose('Ferry', 2)}
        <div class="x1">Show picture Hide picture</div><div class="x2">3:59 PM</div>
        <div class="x3">Next story: <a href="/next">Council votes on the new budget</a></div>
        <div class="x6">Captain:</div><div class="x7">We leave at nine, whatever the weather.</div>
        ${prose('Deck', 2)}
        <div class="x4">The crossing takes forty minutes.</div>
        <ul><li><div class="x5">Adults 4 EUR</div></li></ul>
        <p>The timetable is <a href="/timetable">online</a>, updated every season by the operator.</p>`),
    );
    for (const gone of ['Show picture', '3:59 PM', 'Council votes']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['Ferry paragraph 1', 'Deck paragraph 1', 'The crossing takes forty minutes.', 'Captain:', 'Adults 4 EUR', 'The timetable is'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('keeps a <div> that is the text of a heading, between the paragraphs too; drops a label beside it', () => {
    const text = pageMarkdown(
      page(`<h1>Pellets from leaves</h1><div class="part"><div class="text">${prose('Leaves', 2)}</div></div>
        <div class="part"><h2 class="subline"><div>Funding has been applied for</div></h2><div class="text">${prose('Funding', 2)}</div></div>
        <div class="x1">Show picture</div><div class="part"><div class="text">${prose('Stove', 2)}</div></div>`),
    );
    assert.match(text, /## Funding has been applied for/);
    assert.match(text, /Stove paragraph 1/);
    assert.doesNotMatch(text, /Show picture/);
  });

  it('keeps the cells of a grid drawn with <div>s', () => {
    const rows = [
      ['Weight', '1.2 kg'],
      ['Battery', '10 hours'],
      ['Colour', 'black'],
      ['Size', '30 x 20 cm'],
    ];
    const grid = `<div class="specs">${rows.map(([name, value]) => `<div class="row"><div class="name">${name}</div><div class="value">${value}</div></div>`).join('')}</div>`;
    const text = pageMarkdown(page(`<h1>Fan</h1>${prose('Fan', 2)}${grid}${prose('Noise', 2)}`));
    for (const kept of ['Weight', '1.2 kg', 'Battery', '30 x 20 cm']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('what comes before the first paragraph', () => {
  it('drops date lines, keeps the title, a caption, a lead sentence and lines with other figures', () => {
    const text = pageMarkdown(
      page(`<h1>Lock gates replaced</h1><div class="a1">Thursday, 31 May 2012</div><p class="a2">By Jo Smith, Feb 8, 2020 5 min read</p>
        <div class="a3">31.05.2012 15:40</div><p class="a4">5 tips for a day on the canal, version 2.0</p><p class="a5">Lock 3, Canal Road 12</p>
        <figure><img src="/gate.jpg" alt="The gate"><figcaption>Gate 3 in 2019</figcaption></figure>
        <p>The canal reopens on 1 June.</p>${prose('Gate', 3)}`),
    );
    for (const gone of ['31 May 2012', '5 min read', '31.05.2012']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['# Lock gates replaced', '5 tips for a day', 'Canal Road 12', 'Gate 3 in 2019', 'The canal reopens on 1 June.', 'Gate paragraph 2']) {
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
    }
  });

  it("drops the date line of a block that holds other blocks, keeps those blocks and a block's own sentence", () => {
    const text = pageMarkdown(
      page(`<header class="a1"><h1>Weir rebuilt</h1> 15 May 2019, 05:28 | <a href="#comments">View comments</a><p class="a2">The weir had stood since 1820, the council said.</p></header>
        <div class="a3">Work began in 2017 and ended this spring. <p class="a4">Two cranes did the lifting.</p></div>${prose('Weir', 3)}`),
    );
    for (const gone of ['15 May 2019', 'View comments']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of [
      '# Weir rebuilt',
      'The weir had stood since 1820',
      'Work began in 2017 and ended this spring.',
      'Two cranes did the lifting.',
      'Weir paragraph 2',
    ]) {
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
    }
  });
});

describe('a date line loose between the blocks before the first paragraph', () => {
  it('drops a short run of text with a date between the title and the text, keeps a sentence with a date and what follows the prose', () => {
    const text = pageMarkdown(
      page(`<div class="post"><h1>Moving to Python 3</h1> <small>January 13, 2020 at 08:45 AM | <a href="/c/python">Python</a> | <a href="/p#comments">View comments</a></small>
        <h2>Background</h2> The project began in 2008. <div class="prose">${prose('Port', 4)}</div> Berlin, 2020 </div>`),
    );
    for (const gone of ['January 13', 'View comments']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['# Moving to Python 3', 'Background', 'The project began in 2008.', 'Port paragraph 3', 'Berlin, 2020'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('lines before the first paragraph, outside the core', () => {
  it('drops short lines that are not sentences beside the core, keeps sentences, introductions, pictures and the lines of the core', () => {
    const text = pageMarkdown(
      page(`<h1>Harbour works</h1><div class="head"><p>Asked 8 years, 2 months ago</p><p>Pat Lee Agency Images</p>
        <p>The council met on Monday.</p><p>Three things changed:</p><p><img src="/quay.jpg" alt="The quay"> Quay</p></div>
        <div class="body"><p>Works update</p>${prose('Works', 4)}</div>`),
    );
    for (const gone of ['Asked 8 years', 'Agency Images']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['# Harbour works', 'The council met on Monday.', 'Three things changed:', '![The quay]', 'Works update', 'Works paragraph 3'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('captions of pictures outside the core', () => {
  it('drops the caption of a lead picture outside the core, keeps the picture and a caption inside the core', () => {
    const text = pageMarkdown(
      page(`<h1>Penguins count</h1><div class="lead"><figure><img src="/penguins.jpg" alt="">
        <figcaption>A group of penguins on the ice, counted by the station's staff last February, as every year.</figcaption></figure></div>
        <div class="body"><figure><img src="/station.jpg" alt=""><figcaption>The research station</figcaption></figure>${prose('Count', 4)}</div>`),
    );
    assert.doesNotMatch(text, /A group of penguins/);
    for (const kept of ['/penguins.jpg', 'The research station', 'Count paragraph 3']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('drops the alt text repeating a caption that goes, keeps another alt text and the pictures', () => {
    const text = pageMarkdown(
      page(`<h1>Spraying near schools</h1><div class="lead"><figure><img src="/field.jpg" alt="A sprayed field next to a school.">
        <img src="/map.jpg" alt="Map of the area"><figcaption><p>A sprayed field next to a school.</p></figcaption></figure></div>
        <div class="body">${prose('Field', 4)}</div>`),
    );
    assert.doesNotMatch(text, /sprayed field/);
    for (const kept of ['/field.jpg', '![Map of the area]', 'Field paragraph 3']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('drops the caption of a picture outside the core between the paragraphs, keeps the one inside the core', () => {
    const text = pageMarkdown(
      page(`<h1>Old inns</h1><div class="body">${prose('Inn', 4)}<figure><img src="/cellar.jpg" alt=""><figcaption>The cellar bar</figcaption></figure>${prose('Cellar', 2)}</div>
        <div class="gallery"><figure><img src="/keller.jpg" alt=""><figcaption>Faust and Mephisto dined in this cellar, now a restaurant for tourists.</figcaption></figure></div>
        <div class="more">${prose('Garden', 2)}</div>`),
    );
    assert.doesNotMatch(text, /Faust and Mephisto/);
    for (const kept of ['/keller.jpg', 'The cellar bar', 'Garden paragraph 1']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
  it('takes a block named a caption for one: drops it outside the core between the paragraphs, but not an item named as having none', () => {
    const text = pageMarkdown(
      page(`<h1>A new government</h1><div class="body">${prose('Cabinet', 4)}</div>
        <div class="media"><img src="/avenue.jpg" alt=""><p class="media__caption">Avenue Habib Bourguiba, Tunis.</p></div>
        <div class="item no_caption"><p>Ministers, 25, of whom 9 are women.</p></div><div class="more">${prose('Reform', 2)}</div>`),
    );
    assert.doesNotMatch(text, /Avenue Habib Bourguiba/);
    for (const kept of ['/avenue.jpg', 'Reform paragraph 1', 'of whom 9 are women']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('drops an alt text and a named caption that are only a credit, keeps the picture', () => {
    const text = pageMarkdown(
      page(`<h1>A truce sought</h1><div class="responsive-img"><img src="/senate.jpg" alt=" (credit: Jane Roe/CB/Press)"><div class="img-caption"><small>(credit: Jane Roe/CB/Press)</small></div></div>
        ${prose('Truce', 4)}`),
    );
    assert.doesNotMatch(text, /Jane Roe/);
    for (const kept of ['![](https://example.com/senate.jpg)', 'Truce paragraph 3']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('what stands above the title', () => {
  it('drops a kicker, a back link and a reading time above the title when the title comes before the prose, keeps a caption', () => {
    const text = pageMarkdown(
      page(`<div class="top"><a href="/list">Back to the list</a><p>Indoor climate</p><div>11 min read</div></div>
        <figure><img src="/window.jpg" alt="A wet window"><figcaption>Condensation on a window</figcaption></figure>
        <div class="head">Windows <h1>Keeping windows dry in winter</h1></div>${prose('Window', 3)}`),
    );
    for (const gone of ['Back to the list', 'Indoor climate', '11 min read', 'Windows']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['# Keeping windows dry in winter', 'Condensation on a window', 'Window paragraph 2'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('keeps what comes before a title that follows the first prose', () => {
    const text = pageMarkdown(page(`<p>Indoor climate</p>${prose('Intro', 1)}<h1>Keeping windows dry</h1>${prose('Window', 3)}`));
    for (const kept of ['Indoor climate', 'Intro paragraph 0', '# Keeping windows dry']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('lines standing alone between the paragraphs', () => {
  it('drops a short line that is not a sentence between blocks of other containers, keeps sentences, introductions and numbered steps', () => {
    const text = pageMarkdown(
      page(`<h1>Glaciers</h1><div class="part">${prose('Ice', 2)}</div>
        <div class="picture"><img src="/ice.jpg" alt="A glacier"><p>Photo: Jane Doe/Agency</p></div>
        <div class="part">${prose('Snow', 2)}</div><div class="note"><p>It rained all week.</p></div>
        <div class="part">${prose('Melt', 2)}</div><div class="intro"><p>You will need:</p></div>
        <div class="part">${prose('Tools', 2)}</div><div class="step"><p>1. Choose a pot</p></div>
        <div class="part">${prose('Pot', 2)}</div>`),
    );
    assert.doesNotMatch(text, /Jane Doe/);
    assert.match(text, /!\[A glacier\]/);
    for (const kept of ['It rained all week.', 'You will need:', 'Choose a pot', 'Pot paragraph 1'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('headings without text of their own between the paragraphs', () => {
  it('drops a heading outside the core followed at once by another heading, keeps headings with text and the sections of the core', () => {
    const text = pageMarkdown(`<html><body><main><article><h1>Heat</h1>
      <div class="body">${prose('Heat', 2)}<h2>Part two</h2><h3>The pumps</h3>${prose('Pump', 3)}</div>
      <div class="box"><h2>Further reading on heat</h2><h3>Heat pumps explained for beginners</h3></div>
      <div class="more"><h2>Costs</h2>${prose('Cost', 1)}</div></article></main></body></html>`);
    assert.doesNotMatch(text, /Further reading on heat/);
    for (const kept of ['## Part two', '### The pumps', 'Pump paragraph 2', '## Costs', 'Cost paragraph 0'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it("cuts the credit closing a caption, an alt text or a short line, keeps the caption's own words", () => {
    const text = pageMarkdown(
      page(`<h1>Quay</h1><figure><img src="/quay.jpg" alt="The quay"><figcaption>The quay at dawn, before the first ferry. (Photo: Jane Doe)</figcaption></figure>
        ${prose('Quay', 2)}
        <figure><img src="/crane.jpg" alt="Cranes"><figcaption>Cranes over the harbour. Photo: <a href="/agency">Agency Name</a></figcaption></figure>
        <figure><img src="/ship.jpg" alt="A ship"><figcaption>The old ferry in its last summer. Sam Lee/Harbour Press</figcaption></figure>
        <figure><img src="/gate.jpg" alt="The gate"><figcaption>Picture: Ann Berg</figcaption></figure>
        <figure><img src="/map.jpg" alt="A map"><figcaption>Figure 2: the harbour in 1900 (left)</figcaption></figure>
        <p><img src="/pier.jpg" alt="The pier in winter. (Photo: Kim Ode)"></p>
        ${prose('Harbour', 2)}<p>The mayor at the opening (Photo: City Hall)</p>
        <p>(Season: Spring and Summer)</p>${prose('Ferry', 2)}<p>(Credit: Lou Park / Harbour Times)</p>${prose('Pier', 2)}`),
    );
    for (const gone of ['Jane Doe', 'Agency Name', 'Sam Lee/Harbour Press', 'Ann Berg', 'City Hall', 'Kim Ode', 'Lou Park'])
      assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of [
      'The quay at dawn, before the first ferry.',
      'Cranes over the harbour.',
      'The old ferry in its last summer.',
      'Figure 2: the harbour in 1900 (left)',
      'The mayor at the opening',
      '(Season: Spring and Summer)',
      '![The gate]',
      '![The pier in winter.]',
      'Ferry paragraph 1',
      'Pier paragraph 1',
    ])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});

describe('what is left after the last paragraph', () => {
  it('drops labels, link lines and the headings they leave behind', () => {
    const text = pageMarkdown(
      page(`<h1>Budget</h1>${prose('Budget', 3)}
        <h3>More on this</h3><p><a href="/1">Council votes on budget</a></p><p><a href="/2">Mayor answers critics</a></p>
        <div>Share this article</div><p>Contact:</p>`),
    );
    assert.match(text, /Budget paragraph 2/);
    for (const gone of ['More on this', 'Council votes', 'Mayor answers', 'Share this article', 'Contact:'])
      assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
  });

  it('drops a paragraph boxed apart after the last prose, keeps a closing paragraph beside it', () => {
    const text = pageMarkdown(
      page(`<h1>Tram</h1><div class="body">${prose('Tram', 3)}<p>See you on board.</p></div>
        <div class="box"><div class="inner"><p>Get the latest news straight to your phone with our app.</p></div></div>`),
    );
    assert.match(text, /Tram paragraph 2/);
    assert.match(text, /See you on board\./);
    assert.doesNotMatch(text, /straight to your phone/);
  });

  it('keeps a closing paragraph after a quotation that ends the prose, drops a paragraph boxed apart', () => {
    const text = pageMarkdown(
      page(`<h1>Radio tip</h1><div class="body">${prose('Radio', 2)}<blockquote>${prose('Quoted', 2)}</blockquote>
        <p>Here is a <a href="/podcast.mp3">link</a> to the podcast, which lasts only twenty minutes.</p></div>
        <div class="box"><div class="inner"><p>Get the latest news straight to your phone with our app.</p></div></div>`),
    );
    assert.match(text, /Quoted paragraph 1/);
    assert.match(text, /which lasts only twenty minutes\./);
    assert.doesNotMatch(text, /straight to your phone/);
  });

  it('keeps a closing sentence wrapped like each paragraph before it, drops a paragraph boxed apart', () => {
    const wrap = (html: string) => `<div class="body-section"><div class="component body-text">${html}</div></div>`;
    const text = pageMarkdown(
      page(`<h1>Plumber jailed</h1>${wrap(prose('Court', 1))}${wrap(prose('Boiler', 1))}${wrap(prose('Fumes', 1))}
        ${wrap('<p>His family sobbed in court as he was led away to begin his sentence.</p>')}
        <div class="box"><div class="inner"><p>Get the latest news straight to your phone with our app.</p></div></div>`),
    );
    assert.match(text, /Fumes paragraph 0/);
    assert.match(text, /led away to begin his sentence\./);
    assert.doesNotMatch(text, /straight to your phone/);
  });

  it('drops the headings and lines of a box outside the core after the article, keeps its lists, introductions and pictures', () => {
    const text = pageMarkdown(
      page(`<h1>Canal</h1><div class="body">${prose('Canal', 4)}</div>
        <div class="box"><h2>Write a comment</h2><div>Please be kind to each other when you comment here.</div>
        <h3>Sources:</h3><ul><li>City archive, 1901</li></ul><div><img src="/me.jpg" alt="The author"> Sam Lee wrote this story.</div></div>`),
    );
    assert.match(text, /Canal paragraph 3/);
    for (const gone of ['Write a comment', 'Please be kind']) assert.ok(!text.includes(gone), `${gone} should be gone:\n${text}`);
    for (const kept of ['Sources:', 'City archive, 1901', '![The author]']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('drops a closing paragraph whose links all lead to social networks or app stores, keeps one that links elsewhere', () => {
    const text = pageMarkdown(
      page(`<h1>Ferry</h1>${prose('Ferry', 3)}
        <p>Read the timetable on <a href="https://ferries.example/timetable">the operator's site</a> before you travel, as it changes in winter.</p>
        <p>For the latest news, download our apps for <a href="https://apps.apple.com/app/id1">iOS</a> and <a href="https://play.google.com/store/apps/details?id=x">Android</a>, and follow us on <a href="https://www.instagram.com/example">Instagram</a>.</p>`),
    );
    assert.match(text, /Ferry paragraph 2/);
    assert.match(text, /Read the timetable on \[the operator's site\]/);
    assert.doesNotMatch(text, /download our apps/);
  });

  it('drops a closing line whose links share the page by a messenger or an e-mail without addressee; keeps an address to write to', () => {
    const text = pageMarkdown(
      page(`<h1>Bumblebees</h1>${prose('Bees', 3)}
        <p>Questions about bumblebees in your garden? Write to our volunteers at <a href="mailto:info@bees.example">info@bees.example</a>, who answer within a week.</p>
        <div><strong>Would you like to share the article?</strong><br><a href="whatsapp://send?text=https://bees.example/a"><div class="what"></div></a><a href="mailto:?subject=An article&amp;body=https://bees.example/a"><div class="mail"></div></a></div>`),
    );
    assert.match(text, /volunteers at \[info@bees.example\]/);
    assert.doesNotMatch(text, /share the article/);
  });

  it('keeps a block whose own line is a label when it holds a list that stays; drops a label alone', () => {
    const text = pageMarkdown(
      page(`<h1>Snow White cake</h1>${prose('Cake', 3)}
        <div class="nutrients">A piece holds about <ul><li>390 kcal</li><li>8 g protein</li></ul></div>
        <div>Share this recipe</div>`),
    );
    for (const kept of ['390 kcal', '8 g protein']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
    assert.doesNotMatch(text, /Share this recipe/);
  });

  it('keeps a heading over prose written loose with <br>s in the last block of prose; drops a heading with nothing under it', () => {
    const loose = 'The review goes on without paragraphs, line after line, with enough words, commas, and detail to read as prose.';
    const text = pageMarkdown(
      page(`<h1>A handbook reviewed</h1><section class="body">${loose}<br><br><h2>Structure and contents</h2><br>${loose}<br><br>${loose}</section>
        <h3>More on this</h3>`),
    );
    assert.match(text, /## Structure and contents/);
    assert.doesNotMatch(text, /More on this/);
  });

  it('drops a span named for what it is about standing as a line between blocks; keeps one inside a paragraph or a reference', () => {
    const text = pageMarkdown(
      page(`<h1>Dead bumblebees under lime trees</h1><div class="entry-content">${prose('Linden', 3)}
        <p>Seen on <span class="date">12 July</span>, as every summer, under the old lime trees in the park.</p>
        <ol class="references"><li><span class="reference-text"><cite class="citation web">"Lime trees and bees". Nature Office. Retrieved 2 May 2019.</cite></span></li></ol>
        <br><span class="post-ratings"><strong>Was this article useful?</strong><img src="/star.gif" alt=""> (No ratings yet)<br></span><span class="post-ratings-loading">Loading...</span>
        <p>Linden closing paragraph, with enough words, commas, and detail to read as prose rather than a caption.</p></div>`),
    );
    assert.doesNotMatch(text, /Was this article useful|No ratings yet|Loading\.\.\./);
    for (const kept of ['Seen on 12 July', 'Lime trees and bees', 'Linden closing paragraph']) assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });

  it('drops links back to the top or to the list written loose after the last paragraph; keeps a link to read on elsewhere', () => {
    const back = pageMarkdown(
      page(`<h1>Heating during the holidays</h1><div class="news-show">${prose('Heating', 3)}<a title="back to the list" href="/press"><i class="icon"></i> back to the list</a>
        <a href="#" class="scroll-top"><span>Back to top</span></a></div>`),
    );
    assert.match(back, /Heating paragraph 2/);
    assert.doesNotMatch(back, /back to the list|Back to top/);
    const onward = pageMarkdown(
      page(
        `<h1>Awesome Bar</h1><div class="feature">${prose('Bar', 3)} <a href="https://support.example.org/kb/awesome-bar">See what it can do for you</a></div>`,
      ),
    );
    assert.match(onward, /See what it can do for you/);
  });

  it("drops the date and the details line of a post laid out in a table of one column; keeps a data table's cells", () => {
    const text = pageMarkdown(`<html><body><table><tr><td><table class="eBlock">
      <tr><td><div class="eTitle"><div style="float:right">3:59 PM</div>Letters</div></td></tr>
      <tr><td class="eMessage">${prose('Letters', 3)}<table><tr><th>Train</th><th>Leaves</th></tr><tr><td>IC 812</td><td>9:15</td></tr></table></td></tr>
      <tr><td class="eDetails">Views: 1120 | Added by: <a href="/user/8">Posh</a> | Rating: 0.0/0</td></tr>
      </table><table><tr><td>Comments in all: <b>0</b></td><td></td></tr></table></td></tr></table></body></html>`);
    assert.match(text, /Letters paragraph 2/);
    assert.doesNotMatch(text, /3:59 PM|Views: 1120|Comments in all/);
    assert.match(text, /IC 812 \| 9:15/);
  });

  it('keeps a closing sentence, a closing list and a heading with text under it', () => {
    const text = pageMarkdown(
      page(`<h1>Recipe</h1>${prose('Recipe', 3)}<h2>You will need</h2><ul><li>Flour, 500 g</li><li><a href="/salt">Salt</a></li></ul>
        <h2>Serving</h2><p>Serve warm.</p><p>Thanks for reading.</p>`),
    );
    for (const kept of ['You will need', 'Flour, 500 g', 'Salt', 'Serving', 'Serve warm.', 'Thanks for reading.'])
      assert.ok(text.includes(kept), `${kept} should stay:\n${text}`);
  });
});
