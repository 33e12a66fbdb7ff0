#!/usr/bin/env node
// Bundles the compiled CLI (dist/src/cli/main.js) and the modules it can load into one
// CommonJS file, dist/webwatch.cjs, that bin/webwatch.js loads instead. Why: a one-off command
// loaded some 330 files one by one (zod alone is 95), and resolving, reading and linking them
// was most of its start-up. Modules still run only when first required, as before; packages
// that are large and rarely needed (the server, mail, the model client, native SQLite, the
// browser driver) stay outside and load from node_modules when a command needs them.
// ES modules are turned into CommonJS with TypeScript's transpiler, already a dev dependency.
// Last, it runs one scrape of a page on 127.0.0.1 through bin/webwatch.js, which leaves V8's
// code cache of the bundle beside it (dist/webwatch.cjs.cache), so that the next command
// starts without compiling what a scrape uses.
// Usage: node build/bundle.mjs (after tsc; `npm run build` does both)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve as resolvePath, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { asciiJavaScript, asciiJson } from './ascii-source.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist/src/cli/main.js');
const output = join(root, 'dist/webwatch.cjs');
const chunkDir = join(root, 'dist/webwatch');

/** Loaded from node_modules when needed: native code, or big and used by few commands. */
const EXTERNAL = new Set([
  'better-sqlite3', 'pg', 'fastify', '@fastify/websocket', 'openai', 'nodemailer', 'compromise', 'undici', 'typescript', 'ws', 'smtp-server', 'playwright-core',
]);
// The schema.org reader of the product and menu formats carries a 100 KB oEmbed provider list.
EXTERNAL.add('htmlmetaparser');
const builtins = new Set(builtinModules);
const isBuiltin = (spec) => spec.startsWith('node:') || builtins.has(spec) || builtins.has(spec.split('/')[0]);
const packageName = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

const packageTypes = new Map();
/** Whether `file` is an ES module, by extension or its package's "type". */
function isEsm(file) {
  if (file.endsWith('.mjs')) return true;
  if (file.endsWith('.cjs') || file.endsWith('.json')) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (packageTypes.has(dir)) return packageTypes.get(dir);
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const type = JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
      packageTypes.set(dir, type);
      return type;
    }
    if (dirname(dir) === dir) return false;
  }
}

/** The target of a package's "exports" for `subpath`, with the conditions of `import`. */
function exportTarget(exports, subpath) {
  const pick = (value) => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(pick).find(Boolean);
    if (value && typeof value === 'object') {
      for (const condition of ['node', 'import', 'default']) if (condition in value) {
        const found = pick(value[condition]);
        if (found) return found;
      }
    }
    return undefined;
  };
  if (typeof exports === 'string' || Array.isArray(exports) || !Object.keys(exports).some((key) => key.startsWith('.'))) {
    return subpath === '.' ? pick(exports) : undefined;
  }
  if (subpath in exports) return pick(exports[subpath]);
  for (const [key, value] of Object.entries(exports)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const [before, after] = [key.slice(0, star), key.slice(star + 1)];
    if (subpath.startsWith(before) && subpath.endsWith(after)) {
      const target = pick(value);
      return target?.replace('*', subpath.slice(before.length, subpath.length - after.length));
    }
  }
  return undefined;
}

/** Resolves as require() would, falling back to the "import" conditions for ESM-only packages. */
function resolveFrom(file, spec) {
  try {
    return realpathSync(createRequire(file).resolve(spec));
  } catch (error) {
    if (spec.startsWith('.') || spec.startsWith('/')) throw error;
    const name = packageName(spec);
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      const packageDir = join(dir, 'node_modules', name);
      if (existsSync(join(packageDir, 'package.json'))) {
        const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
        const subpath = spec === name ? '.' : `.${spec.slice(name.length)}`;
        const target = manifest.exports ? exportTarget(manifest.exports, subpath) : subpath === '.' ? manifest.module ?? manifest.main : subpath;
        if (!target) throw error;
        return realpathSync(resolvePath(packageDir, target));
      }
      if (dirname(dir) === dir) throw error;
    }
  }
}

const modules = new Map();
// The conversion worker (src/engine/scrape/convert-pool.ts) starts from the same bundle, at its own entry.
const workerEntry = join(root, 'dist/src/engine/scrape/convert-worker.js');
const queue = [realpathSync(entry), realpathSync(workerEntry)];
const REQUIRE = /\brequire\(\s*(['"])([^'"\n]+)\1\s*\)/g;
// What TypeScript makes of `import('x')`, and the getters of lazyNamespaces below: where code
// is loaded only when it runs.
const DYNAMIC_IMPORT = /(?:Promise\.resolve\(\)\.then\(\(\) => |configurable: false, get: \(\) => )__importStar\(require\((['"])([^'"\n]+)\1\)\)/g;

// zod's index loads its messages in 40 languages (17 ms of every command that checks anything)
// for `z.locales`, which webwatch never reads: that namespace loads when first read instead, and
// goes to a chunk of its own. Not configurable, so that zod's sealing of its exports, which reads
// every configurable getter, leaves it unread.
const LAZY_NAMESPACES = [{ file: /\/zod\/v4\/(classic\/external|core\/index)\.cjs$/, name: 'locales' }];
function lazyNamespaces(file, code) {
  for (const { file: pattern, name } of LAZY_NAMESPACES) {
    if (!pattern.test(file)) continue;
    const eager = new RegExp(`^exports\\.${name} = (__importStar\\(require\\("[^"]+"\\)\\));$`, 'm');
    if (!eager.test(code)) throw new Error(`${file}: no "exports.${name} = __importStar(require(...))" to make lazy; has the package changed?`);
    code = code.replace(eager, `Object.defineProperty(exports, "${name}", { enumerable: true, configurable: false, get: () => $1 });`);
  }
  return code;
}

function transform(file) {
  const source = readFileSync(file, 'utf8');
  if (file.endsWith('.json')) return `module.exports = ${asciiJson(source)};`;
  if (!isEsm(file)) return asciiJavaScript(file, lazyNamespaces(file, source.startsWith('#!') ? `//${source}` : source));
  const { outputText } = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false, removeComments: false },
  });
  return asciiJavaScript(file, outputText.replace(/\bimport\.meta\b/g, '__meta'));
}

while (queue.length > 0) {
  const file = queue.shift();
  if (modules.has(file)) continue;
  const code = transform(file);
  const deps = {};
  const dynamic = new Set([...code.matchAll(DYNAMIC_IMPORT)].map((match) => match[2]));
  const staticSpecs = new Set([...code.replace(DYNAMIC_IMPORT, '').matchAll(REQUIRE)].map((match) => match[2]));
  for (const match of code.matchAll(REQUIRE)) {
    const spec = match[2];
    if (spec in deps || isBuiltin(spec) || EXTERNAL.has(packageName(spec))) continue;
    let target;
    try {
      target = resolveFrom(file, spec);
    } catch {
      continue; // optional dependencies that are not installed: left to the real require
    }
    if (target.endsWith('.node') || !statSync(target).isFile()) continue;
    deps[spec] = target;
    queue.push(target);
  }
  // A module imported only by import() starts a chunk; a static import keeps it with its importer.
  const eager = new Set(Object.entries(deps).filter(([spec]) => staticSpecs.has(spec) || !dynamic.has(spec)).map(([, target]) => target));
  const lazy = new Set(Object.values(deps).filter((target) => !eager.has(target)));
  modules.set(file, { code, deps, eager, lazy });
}

// Chunks: every module goes with the modules that load it at once (static imports), so a command
// reads only the code it runs. The entry points are the CLI and every target of an import(); a
// module belongs to the chunk of the set of entry points that reach it through static imports.
// Modules the CLI itself reaches so are in dist/webwatch.cjs, the others in dist/webwatch/N.cjs.
const start = realpathSync(entry);
const workerStart = realpathSync(workerEntry);
const entries = [start, workerStart, ...new Set([...modules.values()].flatMap(({ lazy }) => [...lazy]))];
const reachedBy = new Map([...modules.keys()].map((file) => [file, []]));
for (const [index, from] of entries.entries()) {
  const seen = new Set([from]);
  for (const file of seen) {
    reachedBy.get(file).push(index);
    for (const target of modules.get(file).eager) seen.add(target);
  }
}

const groups = new Map(); // by the entry points that reach them; "0" (the CLI) alone for its own
for (const [file, by] of reachedBy) {
  const key = by.includes(0) ? '0' : by.join(',');
  if (!groups.has(key)) groups.set(key, { entries: new Set(by), files: [] });
  groups.get(key).files.push(file);
}
// A small chunk costs a file read and a compilation of its own for little code: it joins a chunk
// loaded by every command that loads it (one reached by a superset of its entry points, the
// closest), so that those commands read one file fewer and the others some code they do not run;
// only a chunk loaded by at most twice as many entry points, so that shared chunks (zod's) do
// not collect the small pieces of every command.
const SMALL_CHUNK = 16 * 1024;
const bytes = (group) => group.files.reduce((sum, file) => sum + modules.get(file).code.length, 0);
const isSuperset = (big, small) => big.size > small.size && big.size <= 2 * small.size && [...small].every((entry) => big.has(entry));
for (const [key, group] of [...groups].sort(([, a], [, b]) => b.entries.size - a.entries.size)) {
  if (key === '0' || bytes(group) >= SMALL_CHUNK) continue;
  const into = [...groups].filter(([other, candidate]) => other !== '0' && isSuperset(candidate.entries, group.entries)).sort(([, a], [, b]) => a.entries.size - b.entries.size)[0];
  if (!into) continue;
  into[1].files.push(...group.files);
  groups.delete(key);
}
const chunks = [...groups.values()].map((group) => group.files); // the CLI's first: its entry was read first
const ids = new Map(chunks.flat().map((file, index) => [file, index]));
const chunkOf = new Map(chunks.flatMap((files, chunk) => files.map((file) => [file, chunk])));

// node_modules may be a link to another tree: paths stay under the project's own name for it.
const linkedModules = realpathSync(join(root, 'node_modules'));
const rel = (file) => relative(root, file.startsWith(linkedModules + sep) ? join(root, 'node_modules', file.slice(linkedModules.length + 1)) : file).split(sep).join('/');
/** One module as the runtime below takes it: [id, path, {specifier: id}, definition]. */
const moduleEntry = (file) => {
  const { code, deps } = modules.get(file);
  const table = Object.fromEntries(Object.entries(deps).map(([spec, target]) => [spec, ids.get(target)]));
  return `[${ids.get(file)}, ${JSON.stringify(rel(file))}, ${JSON.stringify(table)}, function (module, exports, require, __filename, __dirname, __meta) {\n${code}\n}],`;
};

rmSync(chunkDir, { recursive: true, force: true });
rmSync(`${output}.cache`, { force: true });
mkdirSync(chunkDir, { recursive: true });
const written = [];
for (const [chunk, files] of chunks.entries()) {
  if (chunk === 0) continue;
  const file = join(chunkDir, `${chunk}.cjs`);
  writeFileSync(file, [`// Generated by build/bundle.mjs: modules loaded together; do not edit.`, 'module.exports = [', ...files.map(moduleEntry), '];', ''].join('\n'));
  written.push(file);
}
// Written last: the launcher takes the bundle when this file is newer than dist/src.
writeFileSync(output, [
  `'use strict';
// Generated by build/bundle.mjs from dist/src and node_modules; do not edit.
// Run by bin/webwatch.js, which passes __compile: it runs a file of generated code (this one, or a
// chunk of dist/webwatch/) from V8's code cache and returns its exports.
const __path = require('node:path');
const __url = require('node:url');
const { createRequire: __createRequire } = require('node:module');
const __root = __path.join(__dirname, '..');
const __cache = new Map();
/** [path, {specifier: id}, definition] of each module id, filled as chunks are read. */
const __modules = [];
/** The chunk of each module id: 0 is this file, N is dist/webwatch/N.cjs. */
const __chunkOf = ${JSON.stringify(chunks.flatMap((files, chunk) => files.map(() => chunk)))};
function __define(entries) {
  for (const [id, ...entry] of entries) __modules[id] = entry;
}
function __load(id) {
  let module = __cache.get(id);
  if (module) return module.exports;
  if (!__modules[id]) __define(__compile(__path.join(__dirname, 'webwatch', __chunkOf[id] + '.cjs')));
  const [file, deps, define] = __modules[id];
  const filename = __path.join(__root, file);
  module = { exports: {}, id: filename, filename, loaded: false };
  __cache.set(id, module);
  // The real require of the original file, made only when a module asks for something outside.
  let real;
  const outside = () => (real ??= __createRequire(filename));
  const require = (spec) => (spec in deps ? __load(deps[spec]) : outside()(spec));
  require.resolve = (spec, options) => outside().resolve(spec, options);
  const meta = {
    get url() { return __url.pathToFileURL(filename).href; },
    filename,
    dirname: __path.dirname(filename),
    resolve: (spec) => __url.pathToFileURL(outside().resolve(spec)).href,
  };
  define.call(module.exports, module, module.exports, require, filename, __path.dirname(filename), meta);
  module.loaded = true;
  return module.exports;
}
__define([`,
  ...chunks[0].map(moduleEntry),
  `]);\nmodule.exports = __load(module.webwatchEntry === 'convert-worker' ? ${ids.get(workerStart)} : ${ids.get(start)});\n`,
].join('\n'));
written.unshift(output);

const notAscii = [...modules].filter(([, { code }]) => /[^\x00-\x7f]/.test(code)).map(([file]) => rel(file));
const size = (files) => `${(files.reduce((sum, file) => sum + statSync(file).size, 0) / 1024 / 1024).toFixed(1)} MiB`;
console.log(`${rel(output)} and ${chunks.length - 1} chunks in ${rel(chunkDir)}/: ${modules.size} modules (${chunks[0].length} in the first), ${size(written)} (${size([output])} in the first)${notAscii.length > 0 ? `; not ASCII (read more slowly): ${notAscii.join(', ')}` : ', ASCII'}`);

// The code caches, from real commands (fresh engine home and config, so nothing of the user's is
// touched): each run adds what it compiled to the caches of the files it read.
const page = '<!doctype html><html><head><title>Warm-up</title></head><body><main><h1>Warm-up</h1><p>A page, with a paragraph, scraped once so that the code it needs is in the cache.</p></main></body></html>';
const server = createServer((request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const home = mkdtempSync(join(tmpdir(), 'webwatch-bundle-'));
const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), WEBWATCH_BUNDLE: '1', WEBWATCH_BUNDLE_CACHE: 'refresh' };
delete env.WEBWATCH_API_URL;
const examples = join(root, 'examples/monitors.yaml');
const warmUps = [
  ['scrape', `http://127.0.0.1:${server.address().port}/`, '--max-age', '0'],
  ['monitor', 'validate', examples],
  ['monitor', 'apply', '-f', examples, '--yes'],
  ['monitor', 'list'],
  ['--help'],
  ['scrape', '--help'],
];
const failed = [];
for (const args of warmUps) {
  const [code, stderr] = await new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'bin/webwatch.js'), ...args], { env, cwd: home, stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('close', (exit) => done([exit, text]));
  });
  if (code !== 0) failed.push(`${args.join(' ')} (exit ${code}): ${stderr.trim()}`);
}
server.close();
rmSync(home, { recursive: true, force: true });
// The bundle itself is checked by the end-to-end tests; a cache missing here is written by the first run.
if (failed.length > 0) console.error(`warning: warm-up runs through the bundle failed: ${failed.join(', ')}; their code is not all in the caches`);
const caches = written.map((file) => `${file}.cache`).filter((file) => existsSync(file));
if (caches.length > 0) console.log(`code caches of ${caches.length} of the ${written.length} files: ${size(caches)}`);
