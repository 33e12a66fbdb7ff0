/**
 * What "the site" is to a map: apex and `www.` are one host, and the host a start URL is
 * redirected to is the site too, its links and sitemap. Names on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mapSite } from '../../src/engine/map/map.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import type { MapRequest } from '../../src/spec/map.js';
import { SITEMAP_PATHS, startMovedSite, type MovedSite } from '../helpers/moved-site.js';

describe('map: the site of a start URL that redirects', () => {
  let site: MovedSite;
  before(async () => {
    site = await startMovedSite();
  });
  after(() => site.close());

  const context = { version: 't', now: () => new Date() };
  const map = (request: Partial<MapRequest> & { url: string }) => mapSite({ limit: 5000, ...request } as MapRequest, context);
  const www = (...paths: string[]) => paths.map((path) => `${site.origin('www.example.test')}${path}`);

  it('lists the start page where it landed, its links and the sitemap on www', async () => {
    const links = await map({ url: site.origin('example.test') });
    const urls = links.map((link) => link.url);
    for (const url of [...www('/', '/a', '/b', '/private/x'), `${site.origin('example.test')}/c`, ...www(...SITEMAP_PATHS)]) assert.ok(urls.includes(url), url);
    assert.ok(!urls.some((url) => url.includes('elsewhere')), 'other sites stay out');
    assert.equal(links.find((link) => link.url === www('/')[0])?.title, 'Home');
  });

  it('with sitemap only and a limit of 10, exactly 10 of the sitemap on www', async () => {
    const links = await map({ url: `${site.origin('example.test')}/`, sitemap: 'only', limit: 10 });
    assert.equal(links.length, 10);
    assert.ok(
      links.every((link) => www(...SITEMAP_PATHS).includes(link.url)),
      JSON.stringify(links),
    );
  });

  it('a start URL redirected to another host lists that host, its links and its sitemap', async () => {
    const urls = (await map({ url: `${site.origin('moved.test')}/` })).map((link) => link.url);
    for (const url of [...www('/', '/a', '/b'), ...www(...SITEMAP_PATHS)]) assert.ok(urls.includes(url), url);
  });

  it('every redirect is judged by checkUrl: a refused www refuses the map', async () => {
    const checkUrl = (url: URL) => {
      if (url.hostname === 'www.example.test') throw new WebwatchError('Forbidden', { status: 403 });
    };
    await assert.rejects(
      mapSite({ url: `${site.origin('example.test')}/`, limit: 10 } as MapRequest, { ...context, checkUrl }),
      (error: WebwatchError) => error.status === 403,
    );
  });
});
