/**
 * A site that lives on `www.example.test`, on one server of 127.0.0.1 that answers by the Host
 * header: the apex `example.test` redirects every path there (robots.txt and sitemap.xml too), and
 * `moved.test` redirects its pages there but has no robots.txt or sitemap of its own, so the site's
 * are found only where its start page landed. `elsewhere.test` is another site.
 */
import { resolveToLoopback } from './hosts.js';
import { startServer, type TestServer } from './server.js';

export const SITE_HOSTS = ['example.test', 'www.example.test', 'moved.test', 'elsewhere.test'];

/** Paths of the pages the sitemap lists; more than 10, so that a map limit of 10 has to cut. */
export const SITEMAP_PATHS = ['/from-sitemap', ...Array.from({ length: 11 }, (_, i) => `/list/${i + 1}`)];

export interface MovedSite {
  server: TestServer;
  port: string;
  /** `http://<host>:<port>`. */
  origin(host: string): string;
  /** Requests the site had for `host` and `path`. */
  requested(host: string, path: string): number;
  close(): Promise<void>;
}

export async function startMovedSite(): Promise<MovedSite> {
  const restore = resolveToLoopback(SITE_HOSTS);
  let port = '';
  const origin = (host: string) => `http://${host}:${port}`;
  const www = origin.bind(null, 'www.example.test');
  const page = (title: string, links: string[]) =>
    `<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${links.map((link) => `<a href="${link}">${link}</a>`).join(' ')}</main></body></html>`;
  const pages: Record<string, () => string> = {
    '/': () => page('Home', ['/a', '/b', '/', '/private/x', `${origin('example.test')}/c`, `${origin('elsewhere.test')}/`]),
    '/a': () => page('A', ['/a/deep']),
    '/a/deep': () => page('Deep', []),
    '/b': () => page('B', []),
    '/c': () => page('C', []),
    '/private/x': () => page('Private', []),
    ...Object.fromEntries(SITEMAP_PATHS.map((path) => [path, () => page(`Listed ${path}`, [])])),
  };
  const server = await startServer({}, (request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const moved = host === 'example.test' || (host === 'moved.test' && path !== '/robots.txt' && path !== '/sitemap.xml');
    if (moved) return void response.writeHead(301, { location: `${www()}${request.url}` }).end();
    if (host === 'www.example.test' && path === '/robots.txt') {
      return void response.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private/\nSitemap: ${www()}/sitemap.xml\n`);
    }
    if (host === 'www.example.test' && path === '/sitemap.xml') {
      return void response
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<urlset>${SITEMAP_PATHS.map((p) => `<url><loc>${www()}${p}</loc></url>`).join('')}</urlset>`);
    }
    const body = host === 'www.example.test' ? pages[path] : host === 'elsewhere.test' && path === '/' ? () => page('Elsewhere', []) : undefined;
    if (!body) return void response.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body());
  });
  port = new URL(server.origin).port;
  return {
    server,
    port,
    origin,
    requested: (host, path) => server.requests.filter((request) => request.path === path && request.headers.host === `${host}:${port}`).length,
    async close() {
      restore();
      await server.close();
    },
  };
}
