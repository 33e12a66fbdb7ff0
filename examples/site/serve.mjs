#!/usr/bin/env node
// Serves the example site's pages on 127.0.0.1, for the README's walk-through.
// Usage: node examples/site/serve.mjs [port]   (else $SITE_PORT, else 8080; 0 picks a free port)
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const port = Number(process.argv[2] ?? process.env.SITE_PORT ?? 8080);

async function page(pathname) {
  const path = decodeURIComponent(pathname);
  const file = resolve(join(root, path.endsWith('/') ? `${path}index.html` : path));
  // Pages only: the directory also holds these scripts and the monitor file.
  if (!file.startsWith(root + sep) || !file.endsWith('.html')) return undefined;
  return readFile(file).catch(() => undefined);
}

const server = createServer(async (request, response) => {
  const { pathname } = new URL(request.url ?? '/', 'http://localhost');
  const body = await page(pathname).catch(() => undefined);
  const status = body ? 200 : 404;
  console.log(`${request.method} ${pathname} ${status}`);
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body ?? '<h1>Not found</h1>\n');
});

server.listen(port, '127.0.0.1', () => {
  console.log(`Serving the example site on http://127.0.0.1:${server.address().port}/`);
});
