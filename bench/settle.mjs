#!/usr/bin/env node
// The settle wait's cost: a static page (already drawn in its HTML) rendered in the browser
// (`waitFor: 1` forces it), browser warm, 10 scrapes one after another; prints min, median, max.
// Usage: npm run build && node bench/settle.mjs
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { scrape } = await import(join(root, 'dist/src/engine/scrape/scrape.js'));
const { closeBrowserIfOpen } = await import(join(root, 'dist/src/engine/browser/lifetime.js'));
const page = '<!doctype html><html><head><title>Static</title></head><body><main><h1>Static</h1><p>All the text is in the HTML.</p></main></body></html>';
const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(page));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const context = { version: 'bench', now: () => new Date(), browser: { env: process.env, artifactsDir: mkdtempSync(join(tmpdir(), 'settle-')) } };
const once = async () => {
  const started = Date.now();
  await scrape({ url, options: { maxAge: 0, waitFor: 1 } }, context);
  return Date.now() - started;
};
await once();
const times = [];
for (let i = 0; i < 10; i++) times.push(await once());
times.sort((a, b) => a - b);
console.log(JSON.stringify({ minMs: times[0], medianMs: times[5], maxMs: times[9] }));
await closeBrowserIfOpen();
server.close();
