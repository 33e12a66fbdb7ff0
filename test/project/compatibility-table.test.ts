/**
 * The compatibility table of the documentation ("Compatibility with the hosted API" in
 * docs/serve.md) names every route the hosted service's clients call: the JS SDK
 * (@mendable/firecrawl-js) and the CLI (firecrawl-cli), read from their installed code. A route added to either fails here until the table says what
 * serve does with it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { documentation } from '../helpers/docs.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SDK_BUNDLE = join(ROOT, 'node_modules/@mendable/firecrawl-js/dist/index.js');
const CLI_DIST = join(ROOT, 'node_modules/firecrawl-cli/dist');
/** The section's heading, at whatever level the page gives it. */
const HEADING = /^#{2,4} Compatibility with the hosted API$/;
/** What the table's `serve` column may say. */
const VERDICTS = ['offered', 'not offered', "serve's own"];

/**
 * A route as compared: query left out, every parameter segment `{}` whatever its name
 * (`${jobId}` in the clients, `{id}` or `{checkId}` in the table), no trailing slash.
 */
function normalizeRoute(path: string): string {
  return (
    path
      .split('?', 1)[0]!
      // A template part glued to the path, not a segment of its own, is a query string (`/v2/agent${query}`).
      .replace(/([^/])\$\{[^}]*\}.*$/, '$1')
      .replace(/\$\{[^}]*\}|\{[^}]*\}/g, '{}')
      .replace(/\/+$/, '')
  );
}

/** The `/v2/...` paths of one client source: string literals and templates that start with one. */
function routesInSource(source: string): string[] {
  // Comments (block comments, and lines that are only a comment) name routes in prose; the code is what calls.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  // Path constants: a route called as it is (`http.post(ENDPOINT, ...)`), or the base of routes
  // built in templates (`${BASE}/papers`), which is no route of its own.
  const definition = /(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*["'`](\/v2\/[^"'`$]*)["'`]/g;
  const constants = new Map<string, string>();
  for (const [, name, value] of code.matchAll(definition)) constants.set(name!, value!);
  const calls = code.replace(definition, '');
  const routes: string[] = [];
  for (const [name, value] of constants) {
    const escaped = name.replace(/\$/g, '\\$');
    const bareUse = new RegExp(`(?<![\\w$.])(?<!\\$\\{)${escaped}(?![\\w$])(?!\\s*=[^=])`);
    if (bareUse.test(calls)) routes.push(normalizeRoute(value));
  }
  for (const [, , text] of calls.matchAll(/(["'`])((?:(?!\1)[^\\\n]|\\.)*)\1/g)) {
    const resolved = text!.replace(/\$\{\s*([A-Za-z_$][\w$]*)\s*\}/g, (whole, name: string) => constants.get(name) ?? whole);
    // A template that starts with the API's address (`${apiUrl}/v2/feedback`) names the path after it.
    const path = resolved.replace(/^\$\{[^}]*\}(?=\/v2\/)/, '');
    if (path.startsWith('/v2/')) routes.push(normalizeRoute(path));
  }
  return routes;
}

function jsFilesUnder(directory: string): string[] {
  return (
    readdirSync(directory, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
      .map((entry) => join(entry.parentPath, entry.name))
      // The CLI's own tests post to made-up addresses.
      .filter((file) => !file.split(/[\\/]/).includes('__tests__'))
  );
}

interface TableRow {
  routes: string[];
  verdict: string;
  line: string;
}

/** The rows of the first table after the section's heading, each with the routes its first cell names. */
function compatibilityTable(docs: string): TableRow[] {
  const lines = docs.split('\n');
  const start = lines.findIndex((line) => HEADING.test(line));
  assert.notEqual(start, -1, `the documentation has no ${HEADING} section`);
  const first = lines.findIndex((line, index) => index > start && line.startsWith('|'));
  assert.ok(first !== -1 && !lines.slice(start + 1, first).some((line) => line.startsWith('#')), `${HEADING} has no table before the next heading`);
  const table: string[] = [];
  for (let index = first; index < lines.length && lines[index]!.startsWith('|'); index += 1) table.push(lines[index]!);
  // The header and the separator row are not routes.
  return table.slice(2).map((line) => {
    const [route = '', verdict = ''] = line
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    return { routes: [...route.matchAll(/\/v2\/[^\s`,;|]*/g)].map(([path]) => normalizeRoute(path)), verdict, line };
  });
}

describe("the documentation's compatibility table", () => {
  const rows = compatibilityTable(documentation());
  const inTable = new Set(rows.flatMap((row) => row.routes));
  const sdkRoutes = new Set(routesInSource(readFileSync(SDK_BUNDLE, 'utf8')));
  const cliRoutes = new Set(jsFilesUnder(CLI_DIST).flatMap((file) => routesInSource(readFileSync(file, 'utf8'))));

  it("reads the clients' routes (the parsing still finds what they are known to call)", () => {
    // Literals, parameters, path constants and query templates of the SDK, and the CLI's own fetches.
    for (const route of [
      '/v2/scrape',
      '/v2/crawl/{}',
      '/v2/monitor/{}/checks/{}',
      '/v2/agent',
      '/v2/search/research/papers/{}/similar',
      '/v2/search/developer',
    ]) {
      assert.ok(sdkRoutes.has(route), `the SDK's ${route} was not found: ${[...sdkRoutes].join(' ')}`);
    }
    for (const route of ['/v2/support/ask', '/v2/scrape/{}/interact', '/v2/search/{}/feedback', '/v2/team/queue-status']) {
      assert.ok(cliRoutes.has(route), `the CLI's ${route} was not found: ${[...cliRoutes].join(' ')}`);
    }
    assert.ok(sdkRoutes.size >= 30, `only ${sdkRoutes.size} routes found in the SDK`);
  });

  it('names every route the hosted SDK calls', () => {
    const missing = [...sdkRoutes].filter((route) => !inTable.has(route)).sort();
    assert.deepEqual(missing, [], `routes of @mendable/firecrawl-js that the table does not name; add a row saying what serve does: ${missing.join(', ')}`);
  });

  it('names every route the hosted CLI calls', () => {
    const missing = [...cliRoutes].filter((route) => !inTable.has(route)).sort();
    assert.deepEqual(missing, [], `routes of firecrawl-cli that the table does not name; add a row saying what serve does: ${missing.join(', ')}`);
  });

  it('says, for each row, whether serve offers it', () => {
    for (const row of rows) {
      assert.ok(VERDICTS.includes(row.verdict), `the serve column is one of ${VERDICTS.join(', ')}: ${row.line}`);
    }
  });
});
