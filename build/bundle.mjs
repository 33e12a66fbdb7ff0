#!/usr/bin/env node
// Bundles the compiled CLI (dist/src/cli/main.js) and the modules it can load into CommonJS files
// that bin/webwatch.js runs instead: dist/webwatch.cjs, with the command tree and every module it
// loads at once, and chunks in dist/webwatch/N.cjs, read when a command first needs one of their
// modules. Why: a one-off command loaded some 330 files one by one (zod alone is 95), and
// resolving, reading and linking them was most of its start-up. Packages that are large and
// rarely needed (the server, mail, the model client, native SQLite, the browser driver) stay
// outside and load from node_modules when a command needs them.
// esbuild resolves the modules and splits them into chunks (one per set of entry points, the CLI
// and every import(), that reach a module through static imports). Its chunks are ES modules,
// which Node 20 cannot compile from a code cache; so each is turned into a function of CommonJS
// code, which the launcher compiles with vm.Script and V8's code cache beside the file.
// Last, it runs a scrape of a page on 127.0.0.1 and a few other commands through bin/webwatch.js,
// which leave the code caches of the files they read (FILE.cache), so that the next command
// starts without compiling what they use.
// Usage: node build/bundle.mjs (after tsc; `npm run build` does both)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { asciiJavaScript } from './ascii-source.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const output = join(root, 'dist/webwatch.cjs');
const chunkDir = join(root, 'dist/webwatch');
const CLI = 'dist/src/cli/main.js';
// The worker threads start from the same bundle, each at its own entry (src/lib/bundle-worker.ts):
// the conversion worker (src/engine/scrape/convert-pool.ts), the validation of definitions
// others send (src/core/untrusted-validation.ts) and the DOCX reader (src/engine/documents/docx.ts).
const WORKERS = {
  'convert-worker': 'dist/src/engine/scrape/convert-worker.js',
  'validate-worker': 'dist/src/core/validate-worker.js',
  'docx-worker': 'dist/src/engine/documents/docx-worker.js',
};
/** Loaded from node_modules when needed: native code, or big and used by few commands. */
const EXTERNAL = [
  'better-sqlite3',
  'pg',
  'fastify',
  '@fastify/websocket',
  'openai',
  'nodemailer',
  'compromise',
  'undici',
  'typescript',
  'ws',
  'smtp-server',
  'playwright-core',
];
// The schema.org reader of the product and menu formats carries a 100 KB oEmbed provider list.
EXTERNAL.push('htmlmetaparser');
// cosmiconfig's own loaders for YAML (js-yaml) and JavaScript (import-fresh) run only for its
// meta configuration (.config/config.yaml or .js beside the working directory): webwatch reads
// the files it finds with its own. Outside, they are not read and compiled by every command
// that reads settings.
EXTERNAL.push('js-yaml', 'import-fresh');
// cosmiconfig parses a package.json in the working directory (for its own meta configuration)
// with parse-json, which brings @babel/code-frame to quote the text around an error: some 3 ms
// of loading and parsing for every command that reads settings in a project. webwatch never
// shows that message (it reads the file again with its own loader to say where the error is,
// without quoting it), so the bundle gives cosmiconfig JSON.parse instead.
// cli-table3 measures cells with string-width 4 (and emoji-regex 8); the rest of the CLI, which
// chooses the columns' widths, with string-width 7. Given the same one, the table cuts and pads
// cells to the widths as they were measured (the two disagree on some emoji), and a table on a
// terminal loads one width function instead of two.
const oneStringWidth = {
  name: 'one-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, ({ importer }) =>
      /[\\/]cli-table3[\\/]/.test(importer) ? { path: 'string-width', namespace: 'one-string-width' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'one-string-width' }, () => ({
      contents: "module.exports = require('string-width').default;",
      loader: 'js',
      resolveDir: root,
    }));
  },
};
const plainJsonParse = {
  name: 'plain-json-parse',
  setup(build) {
    build.onResolve({ filter: /^parse-json$/ }, () => ({ path: 'parse-json', namespace: 'plain-json-parse' }));
    build.onLoad({ filter: /.*/, namespace: 'plain-json-parse' }, () => ({ contents: 'module.exports = (text) => JSON.parse(text);', loader: 'js' }));
  },
};
const rel = (file) => relative(root, file).split(sep).join('/');

// import.meta of each module as it would be in its own file (the re2js, diff and SQLite loaders,
// the worker's path): __meta(path) is defined by the bundle's runtime below.
const importMeta = {
  name: 'import-meta',
  setup(build) {
    build.onLoad({ filter: /\.(m?js|cjs)$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      if (!/\bimport\.meta\b/.test(source)) return undefined;
      return { contents: source.replace(/\bimport\.meta\b/g, `__meta(${JSON.stringify(rel(path))})`), loader: 'js' };
    });
  },
};
const started = performance.now();
const { outputFiles, metafile } = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { cli: CLI, ...WORKERS }, // named, so that every file is in one directory
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: chunkDir,
  write: false,
  external: EXTERNAL,
  // A file in ASCII is a one-byte string to V8, which Node reads several times faster than UTF-8
  // with multi-byte characters (4 MiB: about 3 ms against 17 ms). esbuild escapes strings,
  // templates and identifiers; asciiJavaScript below the regular expressions it leaves.
  charset: 'ascii',
  metafile: true,
  logLevel: 'warning',
  plugins: [importMeta, plainJsonParse, oneStringWidth],
});
const bundled = performance.now();

// Each output as CommonJS (imports become require(), exports module.exports), named by a number.
const outputs = outputFiles.filter((file) => file.path.endsWith('.js'));
const names = new Map(outputs.map((file, index) => [basename(file.path), String(index)]));
const entryOf = (entry) => names.get(basename(Object.keys(metafile.outputs).find((out) => metafile.outputs[out].entryPoint === entry)));
const cli = entryOf(CLI);
const workers = Object.fromEntries(Object.entries(WORKERS).map(([entry, file]) => [entry, entryOf(file)]));
const chunks = new Map(); // name -> { code, statics: names of the chunks it imports at once }
for (const file of outputs) {
  const { imports, exports } = metafile.outputs[rel(file.path)];
  let text = file.text;
  // A CommonJS package behind an import() (yaml, ajv) gets a chunk of `export default require_x();`
  // of its own, and with splitting esbuild gives the import() a namespace of `default` alone
  // (evanw/esbuild#3245), where Node gives the package's named exports too: as module.exports,
  // the importer's __toESM gives both.
  if (exports.length === 1 && exports[0] === 'default') text = text.replace(/^export default (require_\w+\(\));$/m, 'module.exports = $1;');
  // The line naming each module's source ("// dist/src/...") is kept through the transform as a
  // legal comment: the tests read which modules a chunk holds from it.
  text = text.replace(/^(\s*)\/\/ ((?:dist|node_modules)\/\S+)$/gm, '$1//! $2');
  // The launcher runs the code with vm.Script, where import() has no loader: it becomes require().
  const { code } = await esbuild.transform(text, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    charset: 'ascii',
    legalComments: 'inline',
    supported: { 'dynamic-import': false },
  });
  chunks.set(names.get(basename(file.path)), {
    code: asciiJavaScript(rel(file.path), code)
      .replace(/^(\s*)\/\/! ((?:dist|node_modules)\/\S+)$/gm, '$1// $2')
      .replace(/\brequire\("\.\/([^"/]+\.js)"\)/g, (call, chunk) => (names.has(chunk) ? `require("./${names.get(chunk)}")` : call)),
    statics: imports.filter(({ kind, external }) => kind === 'import-statement' && !external).map(({ path }) => names.get(basename(path))),
  });
}

// Files: the CLI's chunk and the chunks it imports at once go in dist/webwatch.cjs, so that --help
// reads no other file; each other chunk in a file of its own, but a small chunk costs a file read
// and a compilation of its own for little code: it joins the file of a chunk loaded by every
// command that loads it (reached from a superset of its entry points, the closest), and only one
// reached from at most twice as many, so that shared chunks (zod's) do not collect the small
// pieces of every command. Entry points: the CLI, the workers and every target of an import().
const inline = new Set([cli]);
for (const name of inline) for (const next of chunks.get(name).statics) inline.add(next);
const SMALL_CHUNK = 16 * 1024;
const dynamic = Object.values(metafile.outputs).flatMap(({ imports }) =>
  imports.filter(({ kind, external }) => kind === 'dynamic-import' && !external).map(({ path }) => names.get(basename(path))),
);
const reachedBy = new Map([...chunks.keys()].map((name) => [name, new Set()]));
for (const entry of new Set([cli, ...Object.values(workers), ...dynamic])) {
  const seen = new Set([entry]);
  for (const name of seen) for (const next of chunks.get(name).statics) seen.add(next);
  for (const name of seen) reachedBy.get(name).add(entry);
}
const files = new Map([...chunks.keys()].filter((name) => !inline.has(name)).map((name) => [name, [name]])); // named by their first chunk
const isSuperset = (big, small) => big.size > small.size && big.size <= 2 * small.size && [...small].every((entry) => big.has(entry));
for (const [name, held] of [...files].sort(([a], [b]) => reachedBy.get(b).size - reachedBy.get(a).size)) {
  if (held.reduce((sum, chunk) => sum + chunks.get(chunk).code.length, 0) >= SMALL_CHUNK) continue;
  const into = [...files.keys()]
    .filter((other) => isSuperset(reachedBy.get(other), reachedBy.get(name)))
    .sort((a, b) => reachedBy.get(a).size - reachedBy.get(b).size)[0];
  if (!into) continue;
  files.get(into).push(...held);
  files.delete(name);
}
const fileOf = Object.fromEntries([...files].flatMap(([file, held]) => held.map((name) => [name, file])));
const functions = (held) =>
  held.map((name) => `${JSON.stringify(name)}: function (module, exports, require, __meta) {\n${chunks.get(name).code}\n},`).join('\n');

rmSync(chunkDir, { recursive: true, force: true });
rmSync(`${output}.cache`, { force: true });
mkdirSync(chunkDir, { recursive: true });
const written = [];
for (const [name, held] of files) {
  const file = join(chunkDir, `${name}.cjs`);
  writeFileSync(file, `// Generated by build/bundle.mjs: chunks loaded together; do not edit.\nmodule.exports = {\n${functions(held)}\n};\n`);
  written.push(file);
}
// Written last: the launcher takes the bundle when this file is newer than dist/src.
writeFileSync(
  output,
  `'use strict';
// Generated by build/bundle.mjs from dist/src and node_modules; do not edit.
// Run by bin/webwatch.js, which passes __compile: it runs a file of generated code (this one, or a
// file of dist/webwatch/) from V8's code cache and returns its exports.
const __path = require('node:path');
const __url = require('node:url');
const { createRequire: __createRequire } = require('node:module');
const __root = __path.join(__dirname, '..');
const __outside = __createRequire(__filename);
/** The file of dist/webwatch/ of each chunk that is not in this one. */
const __fileOf = ${JSON.stringify(fileOf)};
/** The code of each chunk, filled as files are read. */
const __chunks = {
${functions([...inline])}
};
const __loaded = new Map();
function __load(name) {
  let module = __loaded.get(name);
  if (module) return module.exports;
  module = { exports: {} };
  __loaded.set(name, module);
  if (!__chunks[name]) Object.assign(__chunks, __compile(__path.join(__dirname, 'webwatch', __fileOf[name] + '.cjs')));
  __chunks[name](module, module.exports, __require, __meta);
  return module.exports;
}
/** Chunks by their number; anything else (Node's modules, the packages left outside) from node_modules. */
function __require(spec) {
  return spec.startsWith('./') ? __load(spec.slice(2)) : __outside(spec);
}
__require.resolve = (spec, options) => __outside.resolve(spec, options);
/** import.meta of a module, as it would be in its own file. */
function __meta(file) {
  const filename = __path.join(__root, file);
  return {
    get url() { return __url.pathToFileURL(filename).href; },
    filename,
    dirname: __path.dirname(filename),
    resolve: (spec) => __url.pathToFileURL(__createRequire(filename).resolve(spec)).href,
  };
}
/** The chunk of each worker's entry (src/lib/bundle-worker.ts names it). */
const __workers = ${JSON.stringify(workers)};
module.exports = __load(__workers[module.webwatchEntry] ?? ${JSON.stringify(cli)});
`,
);
written.unshift(output);
const converted = performance.now();
const size = (paths) => `${(paths.reduce((sum, file) => sum + statSync(file).size, 0) / 1024 / 1024).toFixed(1)} MiB`;
console.log(
  `${rel(output)} and ${files.size} files in ${rel(chunkDir)}/: ${Object.keys(metafile.inputs).length} modules in ${chunks.size} chunks (${inline.size} in the first), ${size(written)} (${size([output])} in the first); esbuild ${Math.round(bundled - started)} ms, CommonJS ${Math.round(converted - bundled)} ms`,
);

// The code caches, from real commands (fresh engine home and config, so nothing of the user's is
// touched): each run adds what it compiled to the caches of the files it read.
const page =
  '<!doctype html><html><head><title>Warm-up</title></head><body><main><h1>Warm-up</h1><p>A page, with a paragraph, scraped once so that the code it needs is in the cache.</p></main></body></html>';
const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const home = mkdtempSync(join(tmpdir(), 'webwatch-bundle-'));
const env = {
  ...process.env,
  WEBWATCH_HOME: join(home, 'data'),
  XDG_CONFIG_HOME: join(home, 'config'),
  WEBWATCH_BUNDLE: '1',
  WEBWATCH_BUNDLE_CACHE: 'refresh',
};
delete env.WEBWATCH_API_URL;
const examples = join(root, 'examples/monitors.yaml');
const warmUps = [
  ['scrape', `http://127.0.0.1:${server.address().port}/`, '--max-age', '0'],
  ['monitor', 'validate', examples],
  ['monitor', 'apply', '-f', examples, '--yes'],
  ['monitor', 'list'],
  ['--help'],
  ['scrape', '--help'],
  // An assistant starting the MCP server and listing its tools; it ends when its input does.
  [
    'mcp',
    {
      input: [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]
        .map((message) => `${JSON.stringify(message)}\n`)
        .join(''),
    },
  ],
];
const failed = [];
for (const warmUp of warmUps) {
  const input = typeof warmUp.at(-1) === 'object' ? warmUp.pop().input : undefined;
  const args = warmUp;
  const [code, stderr] = await new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'bin/webwatch.js'), ...args], {
      env,
      cwd: home,
      stdio: input === undefined ? ['ignore', 'ignore', 'pipe'] : ['pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) {
      child.stdin.write(input);
      // The input ends once the last request is answered (or after 20 s, then a failure).
      let answered = '';
      const giveUp = setTimeout(() => child.stdin.end(), 20_000);
      child.stdout.on('data', (chunk) => {
        answered += chunk;
        if (!answered.includes('"id":2')) return;
        clearTimeout(giveUp);
        child.stdin.end();
      });
    }
    let text = '';
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('close', (exit) => done([exit, text]));
  });
  if (code !== 0) failed.push(`${args.join(' ')} (exit ${code}): ${stderr.trim()}`);
}
server.close();
rmSync(home, { recursive: true, force: true });
if (failed.length > 0) console.error(`warning: warm-up runs through the bundle failed: ${failed.join(', ')}; their code is not all in the caches`);
const caches = written.map((file) => `${file}.cache`).filter((file) => existsSync(file));
if (caches.length > 0) console.log(`code caches of ${caches.length} of the ${written.length} files: ${size(caches)}`);
