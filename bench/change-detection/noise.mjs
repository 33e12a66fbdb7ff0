// Noise: changes a reader would not call new content. Each kind inserts what it will later
// alter into v0 (`insert`, with its first value) and alters it in one step (`change`). Both
// return a short description of what they did. `visible`: whether the altered part shows as
// text (a counter, a time); the others change only markup, URLs or hidden values.
import { all, appendTo, attr, elements, insertAfter, insertBefore, isElement, isText, newElement, newText } from './dom.mjs';
import { flowAnchor } from './page.mjs';

/** Classes of the visible volatile elements this file inserts (the self-check skips their text). */
export const VOLATILE_CLASSES = {
  'relative-time-head': ['article-meta-time', 'timestamp-ago', 'posted-ago', 'meta-time'],
  'counter-head': ['view-count', 'article-views', 'meta-views', 'read-count'],
  'counter-tail': ['comment-count', 'comments-count', 'share-count', 'reactions'],
  'rotating-aside': ['most-read', 'trending-now', 'popular-stories', 'related-rail'],
  'ad-slot': ['ad-slot', 'advert', 'ad-container', 'dfp-ad'],
  'footer-clock': ['render-info', 'generated-at', 'page-timing', 'build-info'],
  'last-updated': ['last-updated', 'site-updated', 'updated-at', 'footer-updated'],
};

const EPOCH = Date.UTC(2026, 11, 1, 9, 0, 0);
const IMG_ATTRS = ['src'];

/** Set one query parameter of a URL as written (relative or absolute), keeping its other parts. */
export function setParams(url, params) {
  const hashAt = url.indexOf('#');
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  const rest = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const queryAt = rest.indexOf('?');
  const path = queryAt >= 0 ? rest.slice(0, queryAt) : rest;
  const search = new URLSearchParams(queryAt >= 0 ? rest.slice(queryAt + 1) : '');
  for (const [key, value] of Object.entries(params)) search.set(key, value);
  return `${path}?${search.toString()}${hash}`;
}

const linkable = (href) => href && !/^\s*(#|javascript:|mailto:|tel:|data:)/i.test(href);
const asset = (url) => url && !/^\s*(data:|blob:|about:|javascript:)/i.test(url);
const images = (ctx) => all(ctx.body, 'img').filter((img) => asset(attr(img, 'src')));

/** Where the blocks next to the headline go: after the <h1>, else before the first article block. */
function placeNearHeadline(ctx, nodes) {
  if (ctx.headline) {
    const after = ctx.state.headAnchor ?? flowAnchor(ctx.headline);
    insertAfter(after, nodes);
    ctx.state.headAnchor = nodes.at(-1);
  } else {
    insertBefore(flowAnchor(ctx.blocks[0]), nodes);
  }
}
/** A block of the article to put something after, about `fraction` of the way through, not used yet. */
function middleAnchor(ctx, fraction) {
  const used = (ctx.state.usedAnchors ??= new Set());
  const n = ctx.blocks.length;
  const order = [...Array(n).keys()].sort((a, b) => Math.abs(a - fraction * (n - 1)) - Math.abs(b - fraction * (n - 1)));
  for (const i of order) {
    const anchor = flowAnchor(ctx.blocks[i]);
    if (i < n - 1 && !used.has(anchor)) {
      used.add(anchor);
      return anchor;
    }
  }
  return flowAnchor(ctx.blocks[Math.max(0, n - 2)]);
}
function footerOf(ctx) {
  const footers = all(ctx.body, 'footer');
  if (footers.length) return footers.at(-1);
  if (!ctx.state.footer) {
    ctx.state.footer = newElement('div', { class: 'site-footer' });
    appendTo(ctx.body, [ctx.state.footer]);
  }
  return ctx.state.footer;
}
const setText = (el, text) => {
  const node = el.children.find(isText);
  node.data = text;
};

function relativeTime(lang, value, unit) {
  return new Intl.RelativeTimeFormat(lang, { numeric: 'always' }).format(-value, unit);
}
function number(lang, value) {
  return new Intl.NumberFormat(lang).format(value);
}
const utc = (ms) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

export const NOISE = [
  {
    name: 'relative-time-head',
    visible: true,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.relative = ctx.rng.chance(0.5) ? { value: ctx.rng.int(8, 58), unit: 'minute' } : { value: ctx.rng.int(1, 20), unit: 'hour' });
      const posted = EPOCH - (s.unit === 'minute' ? s.value * 60e3 : s.value * 3600e3);
      s.time = newElement('time', { datetime: new Date(posted).toISOString() }, [newText(relativeTime(ctx.lang, s.value, s.unit))]);
      placeNearHeadline(ctx, [newElement('div', { class: ctx.rng.pick(VOLATILE_CLASSES['relative-time-head']) }, [s.time])]);
      return s.time.children[0].data;
    },
    change(ctx) {
      const s = ctx.state.relative;
      const before = s.time.children[0].data;
      if (s.unit === 'minute' && s.value + 1 >= 60) Object.assign(s, { value: 1, unit: 'hour' });
      else if (s.unit === 'minute') s.value = Math.min(59, s.value + ctx.rng.int(1, 20));
      else if (s.value >= 23) Object.assign(s, { value: 1, unit: 'day' });
      else s.value += 1;
      setText(s.time, relativeTime(ctx.lang, s.value, s.unit));
      return `${before} -> ${s.time.children[0].data}`;
    },
  },
  {
    name: 'counter-head',
    visible: true,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.views = { value: ctx.rng.int(200, 90000) });
      s.el = newElement('span', { class: ctx.rng.pick(VOLATILE_CLASSES['counter-head']) }, [newText(`👁 ${number(ctx.lang, s.value)}`)]);
      placeNearHeadline(ctx, [newElement('div', { class: 'article-stats' }, [s.el])]);
      return s.el.children[0].data;
    },
    change(ctx) {
      const s = ctx.state.views;
      const before = s.el.children[0].data;
      s.value += ctx.rng.int(1, 900);
      setText(s.el, `👁 ${number(ctx.lang, s.value)}`);
      return `${before} -> ${s.el.children[0].data}`;
    },
  },
  {
    name: 'counter-tail',
    visible: true,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.comments = { value: ctx.rng.int(0, 400) });
      s.el = newElement('a', { href: '#comments' }, [newText(`💬 ${number(ctx.lang, s.value)}`)]);
      insertAfter(flowAnchor(ctx.blocks.at(-1)), [newElement('div', { class: ctx.rng.pick(VOLATILE_CLASSES['counter-tail']) }, [s.el])]);
      return s.el.children[0].data;
    },
    change(ctx) {
      const s = ctx.state.comments;
      const before = s.el.children[0].data;
      s.value += ctx.rng.int(1, 12);
      setText(s.el, `💬 ${number(ctx.lang, s.value)}`);
      return `${before} -> ${s.el.children[0].data}`;
    },
  },
  {
    name: 'rotating-aside',
    visible: true,
    applicable: (ctx) => ctx.sentences.length >= 1 && ctx.words.length >= 20,
    insert(ctx) {
      // Headlines of "other articles": runs of 4-8 of the page's own words.
      const pool = Array.from({ length: 14 }, () => {
        const words = Array.from({ length: ctx.rng.int(4, 8) }, () => ctx.rng.pick(ctx.words));
        const text = words.join(ctx.spaced ? ' ' : '');
        return { text: text[0].toUpperCase() + text.slice(1), href: `/news/${ctx.rng.base36(6)}-${ctx.rng.int(100000, 999999)}` };
      });
      const s = (ctx.state.aside = { pool, start: 0 });
      s.list = newElement('ul');
      s.fill = () => {
        s.list.children = [];
        for (let i = 0; i < 5; i++) {
          const item = pool[(s.start + i) % pool.length];
          appendTo(s.list, [newElement('li', {}, [newElement('a', { href: item.href }, [newText(item.text)])])]);
        }
      };
      s.fill();
      insertAfter(middleAnchor(ctx, 0.5), [newElement('aside', { class: ctx.rng.pick(VOLATILE_CLASSES['rotating-aside']) }, [s.list])]);
      return `5 links: ${pool[0].text} ...`;
    },
    change(ctx) {
      const s = ctx.state.aside;
      s.start += ctx.rng.int(2, 4);
      s.fill();
      return `rotated by ${s.start}: first now ${s.pool[s.start % s.pool.length].text}`;
    },
  },
  {
    name: 'ad-slot',
    visible: false,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.ad = { iframe: ctx.rng.chance(0.35) });
      const label = ctx.lang.startsWith('de') ? 'Anzeige' : ctx.lang.startsWith('fr') ? 'Publicité' : ctx.lang.startsWith('en') ? 'Advertisement' : 'Ad';
      s.render = () => {
        const id = ctx.rng.hex(12);
        if (s.iframe) {
          s.frame.attribs.src = `https://adserver.example.net/frame?slot=article-mid&cb=${id}`;
        } else {
          s.link.attribs.href = `https://adclick.example.net/c?cr=${id}&pl=${ctx.rng.int(1000, 9999)}`;
          s.img.attribs.src = `https://adserver.example.net/creative/${id}.jpg`;
        }
        return id;
      };
      const children = [newElement('span', { class: 'ad-label' }, [newText(label)])];
      if (s.iframe) {
        s.frame = newElement('iframe', { src: '', width: '300', height: '250', frameborder: '0', scrolling: 'no' });
        children.push(s.frame);
      } else {
        s.img = newElement('img', { src: '', width: '300', height: '250', alt: '' });
        s.link = newElement('a', { href: '', rel: 'sponsored noopener', target: '_blank' }, [s.img]);
        children.push(s.link);
      }
      insertAfter(middleAnchor(ctx, 0.3), [newElement('div', { class: ctx.rng.pick(VOLATILE_CLASSES['ad-slot']), 'data-ad-unit': 'article-mid' }, children)]);
      return `${s.iframe ? 'iframe' : 'image'} creative ${s.render()}`;
    },
    change: (ctx) => `creative now ${ctx.state.ad.render()}`,
  },
  {
    name: 'form-token',
    visible: false,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.form = {});
      s.input = newElement('input', { type: 'hidden', name: 'csrf_token', value: '' });
      s.meta = newElement('meta', { name: 'csrf-token', content: '' });
      appendTo(ctx.head, [s.meta]);
      const form = newElement('form', { class: 'newsletter-signup', action: '/newsletter/subscribe', method: 'post' }, [
        s.input,
        newElement('input', { type: 'email', name: 'email', placeholder: '@', required: '' }),
        newElement('button', { type: 'submit' }, [newText('✉')]),
      ]);
      insertAfter(flowAnchor(ctx.blocks.at(-1)), [form]);
      s.render = () => {
        s.input.attribs.value = ctx.rng.token(43);
        s.meta.attribs.content = ctx.rng.token(43);
        return s.input.attribs.value.slice(0, 8);
      };
      return `token ${s.render()}...`;
    },
    change: (ctx) => `token now ${ctx.state.form.render()}...`,
  },
  {
    name: 'script-nonce',
    visible: false,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.nonce = {});
      s.inline = newElement('script', {}, [newText('')]);
      appendTo(ctx.head, [s.inline]);
      s.render = () => {
        const nonce = ctx.rng.token(22);
        for (const el of [...all(ctx.doc, 'script'), ...all(ctx.doc, 'style')]) el.attribs.nonce = nonce;
        s.inline.children[0].data = `window.__BUILD_ID__="${ctx.rng.hex(20)}";window.__RENDERED_AT__=${EPOCH + ctx.rng.int(0, 9e6)};`;
        return nonce;
      };
      return `nonce ${s.render()}`;
    },
    change: (ctx) => `nonce now ${ctx.state.nonce.render()}`,
  },
  {
    name: 'cache-busting',
    visible: false,
    group: 'img-src',
    applicable: (ctx) => assetsOf(ctx).length > 0,
    insert(ctx) {
      const s = (ctx.state.cache = { assets: assetsOf(ctx) });
      s.render = () => {
        const v = ctx.rng.hex(10);
        for (const [el, name, original] of s.assets) {
          if (name === 'srcset')
            el.attribs.srcset = original
              .split(',')
              .map((part) => {
                const [url, ...descriptor] = part.trim().split(/\s+/);
                return [setParams(url, { v }), ...descriptor].join(' ');
              })
              .join(', ');
          else el.attribs[name] = setParams(original, { v });
        }
        return v;
      };
      return `${s.assets.length} asset URLs ?v=${s.render()}`;
    },
    change: (ctx) => `?v= now ${ctx.state.cache.render()}`,
  },
  {
    name: 'footer-clock',
    visible: true,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.clock = { at: EPOCH + ctx.rng.int(0, 3600) * 1000 });
      s.el = newElement('p', { class: ctx.rng.pick(VOLATILE_CLASSES['footer-clock']) }, [newText('')]);
      appendTo(footerOf(ctx), [s.el]);
      s.render = () => setText(s.el, `Page generated at ${utc(s.at)} UTC · Rendered in ${(ctx.rng.int(20, 900) / 1000).toFixed(3)} s`);
      s.render();
      return s.el.children[0].data;
    },
    change(ctx) {
      const s = ctx.state.clock;
      s.at += ctx.rng.int(60, 3600) * 1000;
      s.render();
      return s.el.children[0].data;
    },
  },
  {
    name: 'hashed-classes',
    visible: false,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.hashed = { marks: [] });
      for (const el of elements(ctx.body)) {
        if (el.type !== 'tag' || !ctx.rng.chance(0.7)) continue;
        const own = (attr(el, 'class') ?? '').split(/\s+/).filter(Boolean);
        const base = own[0]
          ? `${own[0].replace(/[^A-Za-z0-9]/g, '').replace(/^./, (c) => c.toUpperCase()) || 'C'}_${own[0].replace(/[^A-Za-z0-9_-]/g, '')}__`
          : 'css-';
        s.marks.push({ el, own, base, length: own[0] ? 5 : 6 });
      }
      s.render = () => {
        for (const m of s.marks) m.el.attribs.class = [...m.own, `${m.base}${ctx.rng.base36(m.length)}`].join(' ');
        return s.marks[0] ? s.marks[0].el.attribs.class : '';
      };
      return `${s.marks.length} elements, e.g. class="${s.render()}"`;
    },
    change: (ctx) => `rehashed, e.g. class="${ctx.state.hashed.render()}"`,
  },
  {
    name: 'attribute-order',
    visible: false,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.order = { spaces: [] });
      // Whitespace between tags that has a line break, outside <pre> and the like: it reads as one space whatever it is.
      const walk = (n, depth, pre) => {
        for (const child of n.children ?? []) {
          if (isText(child) && !pre && child.data.includes('\n') && child.data.trim() === '') s.spaces.push({ node: child, depth });
          else if (isElement(child))
            walk(child, depth + 1, pre || ['pre', 'textarea', 'script', 'style', 'code', 'listing', 'plaintext', 'xmp'].includes(child.name));
        }
      };
      walk(ctx.doc, 0, false);
      s.render = () => {
        let shuffled = 0;
        for (const el of elements(ctx.doc)) {
          const names = Object.keys(el.attribs);
          if (names.length < 2) continue;
          const order = ctx.rng.shuffle(names);
          el.attribs = Object.fromEntries(order.map((name) => [name, el.attribs[name]]));
          shuffled++;
        }
        const unit = ctx.rng.pick(['  ', '    ', '\t', ' ', '   '].filter((u) => u !== s.unit));
        s.unit = unit;
        for (const { node, depth } of s.spaces) node.data = `\n${unit.repeat(Math.min(depth, 30))}`;
        return `${shuffled} elements reordered, ${s.spaces.length} gaps indented with ${JSON.stringify(unit)}`;
      };
      return s.render();
    },
    change: (ctx) => ctx.state.order.render(),
  },
  {
    name: 'tracking-params',
    visible: false,
    applicable: (ctx) => all(ctx.body, 'a').some((a) => linkable(attr(a, 'href'))),
    insert(ctx) {
      const s = (ctx.state.tracking = {
        links: all(ctx.body, 'a')
          .filter((a) => linkable(attr(a, 'href')))
          .map((a) => [a, attr(a, 'href')]),
      });
      s.render = () => {
        const campaign = `${ctx.rng.base36(8)}`;
        const click = ctx.rng.token(24);
        // From the link's href as it is now: an edit since (a link-target step) must not be undone.
        for (const [a, href] of s.links)
          a.attribs.href = setParams(a.attribs.href ?? href, { utm_source: 'site', utm_medium: 'article', utm_campaign: campaign, _clid: click });
        return campaign;
      };
      return `${s.links.length} links, utm_campaign=${s.render()}`;
    },
    change: (ctx) => `utm_campaign and click id now ${ctx.state.tracking.render()}`,
  },
  {
    name: 'random-ids',
    visible: false,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.ids = { marks: [] });
      for (const el of elements(ctx.body)) {
        if (el.type !== 'tag') continue;
        if (ctx.rng.chance(0.5)) s.marks.push({ el, name: 'data-reactid' });
        else if (attr(el, 'id') === undefined && ctx.rng.chance(0.2)) s.marks.push({ el, name: 'id' });
      }
      s.render = () => {
        for (const m of s.marks) m.el.attribs[m.name] = m.name === 'id' ? `:r${ctx.rng.base36(3)}:` : `.${ctx.rng.base36(4)}.${ctx.rng.int(0, 40)}`;
        return s.marks.length;
      };
      return `${s.render()} data-reactid/id attributes`;
    },
    change: (ctx) => `${ctx.state.ids.render()} ids regenerated`,
  },
  {
    name: 'jsonld-date',
    visible: false,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.jsonld = { at: EPOCH - ctx.rng.int(3600, 86400) * 1000 });
      s.el = newElement('script', { type: 'application/ld+json' }, [newText('')]);
      appendTo(ctx.head, [s.el]);
      s.render = () => {
        s.el.children[0].data = JSON.stringify({
          '@context': 'https://schema.org',
          '@type': 'WebPage',
          name: ctx.titleText || undefined,
          datePublished: new Date(EPOCH - 86400e3 * 3).toISOString(),
          dateModified: new Date(s.at).toISOString(),
        });
        return new Date(s.at).toISOString();
      };
      return `dateModified ${s.render()}`;
    },
    change(ctx) {
      ctx.state.jsonld.at += ctx.rng.int(60, 7200) * 1000;
      return `dateModified now ${ctx.state.jsonld.render()}`;
    },
  },
  {
    name: 'last-updated',
    visible: true,
    applicable: () => true,
    insert(ctx) {
      const s = (ctx.state.updated = { at: EPOCH - ctx.rng.int(1, 48) * 3600e3 });
      s.el = newElement('p', { class: ctx.rng.pick(VOLATILE_CLASSES['last-updated']) }, [newText('')]);
      appendTo(footerOf(ctx), [s.el]);
      const label = ctx.lang.startsWith('en') ? 'Last updated: ' : '↻ ';
      s.render = () => setText(s.el, `${label}${new Intl.DateTimeFormat(ctx.lang, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(s.at)}`);
      s.render();
      return s.el.children[0].data;
    },
    change(ctx) {
      const s = ctx.state.updated;
      const before = s.el.children[0].data;
      s.at += ctx.rng.int(1, 30) * 3600e3;
      s.render();
      return `${before} -> ${s.el.children[0].data}`;
    },
  },
  {
    name: 'image-cdn-size',
    visible: false,
    group: 'img-src',
    applicable: (ctx) => images(ctx).length > 0,
    insert(ctx) {
      const sizes = [
        [800, 450],
        [1200, 675],
        [640, 360],
        [960, 540],
        [1024, 576],
        [1600, 900],
        [720, 405],
      ];
      const s = (ctx.state.cdn = { images: images(ctx).map((img) => [img, attr(img, 'src')]), sizes: ctx.rng.shuffle(sizes), at: 0 });
      s.render = () => {
        const [w, h] = s.sizes[s.at % s.sizes.length];
        for (const [img, src] of s.images) img.attribs.src = setParams(src, { w: String(w), h: String(h), q: '75' });
        return `${w}x${h}`;
      };
      return `${s.images.length} images at ${s.render()}`;
    },
    change(ctx) {
      ctx.state.cdn.at += 1;
      return `images now ${ctx.state.cdn.render()}`;
    },
  },
  {
    name: 'lazy-placeholder',
    visible: false,
    group: 'img-src',
    applicable: (ctx) => images(ctx).length > 0,
    insert(ctx) {
      const s = (ctx.state.lazy = { images: images(ctx) });
      for (const img of s.images) {
        img.attribs['data-src'] = attr(img, 'src');
        img.attribs.loading = 'lazy';
        img.attribs.class = [attr(img, 'class'), 'lazyload'].filter(Boolean).join(' ');
      }
      s.render = () => {
        // A tiny blurred preview, as image services draw them: a different one on every render.
        const color = ctx.rng.hex(6);
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="9"><rect width="16" height="9" fill="#${color}"/></svg>`;
        for (const img of s.images) img.attribs.src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
        return color;
      };
      return `${s.images.length} images lazy, placeholder #${s.render()}`;
    },
    change: (ctx) => `placeholder now #${ctx.state.lazy.render()}`,
  },
];

/** The asset URLs cache-busting rewrites: images (also in the article), srcsets, stylesheets, scripts. */
function assetsOf(ctx) {
  const found = [];
  for (const img of all(ctx.doc, 'img')) {
    for (const name of IMG_ATTRS) if (asset(attr(img, name))) found.push([img, name, attr(img, name)]);
    if (attr(img, 'srcset')) found.push([img, 'srcset', attr(img, 'srcset')]);
  }
  for (const source of all(ctx.doc, 'source')) if (attr(source, 'srcset')) found.push([source, 'srcset', attr(source, 'srcset')]);
  for (const link of all(ctx.doc, 'link'))
    if ((attr(link, 'rel') ?? '').toLowerCase().split(/\s+/).includes('stylesheet') && asset(attr(link, 'href')))
      found.push([link, 'href', attr(link, 'href')]);
  for (const script of all(ctx.doc, 'script')) if (asset(attr(script, 'src'))) found.push([script, 'src', attr(script, 'src')]);
  return found;
}

export const NOISE_BY_NAME = Object.fromEntries(NOISE.map((kind) => [kind.name, kind]));
