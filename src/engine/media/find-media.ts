/**
 * Where a page declares its video: `<video src>` and its `<source>`s, Open Graph's `og:video`
 * (and its `:url` and `:secure_url`), and JSON-LD `VideoObject`s' `contentUrl`, in that order,
 * each made absolute against the page, http(s) only, once each.
 */
import * as cheerio from 'cheerio';

export function declaredMedia(html: string, pageUrl: string): string[] {
  const $ = cheerio.load(html);
  const found: string[] = [];
  const add = (value: string | undefined) => {
    if (!value) return;
    try {
      const url = new URL(value.trim(), pageUrl);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !found.includes(url.href)) found.push(url.href);
    } catch {
      // Not a URL: passed over.
    }
  };
  $('video').each((_, video) => {
    add($(video).attr('src'));
    $(video)
      .find('source')
      .each((__, source) => add($(source).attr('src')));
  });
  $('meta[property="og:video"], meta[property="og:video:url"], meta[property="og:video:secure_url"]').each((_, meta) => add($(meta).attr('content')));
  $('script[type="application/ld+json"]').each((_, script) => {
    let data: unknown;
    try {
      data = JSON.parse($(script).text());
    } catch {
      return;
    }
    for (const node of nodesOf(data)) {
      const type = node['@type'];
      if (type === 'VideoObject' || (Array.isArray(type) && type.includes('VideoObject')))
        add(typeof node.contentUrl === 'string' ? node.contentUrl : undefined);
    }
  });
  return found;
}

/** Every object of a JSON-LD document: the top, arrays, and @graph, a few levels deep. */
function nodesOf(data: unknown, depth = 0): Record<string, unknown>[] {
  if (depth > 4 || data === null || typeof data !== 'object') return [];
  if (Array.isArray(data)) return data.flatMap((item) => nodesOf(item, depth + 1));
  const node = data as Record<string, unknown>;
  return [node, ...nodesOf(node['@graph'], depth + 1), ...nodesOf(node.video, depth + 1)];
}
