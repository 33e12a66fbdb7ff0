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
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

function transform(file) {
  const source = readFileSync(file, 'utf8');
  if (file.endsWith('.json')) return `module.exports = ${asciiJson(source)};`;
  if (!isEsm(file)) return asciiJavaScript(file, source.startsWith('#!') ? `//${source}` : source);
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
  modules.set(file, { code, deps });
}

const ids = new Map([...modules.keys()].map((file, index) => [file, index]));
// node_modules may be a link to another tree: paths stay under the project's own name for it.
const linkedModules = realpathSync(join(root, 'node_modules'));
const rel = (file) => relative(root, file.startsWith(linkedModules + sep) ? join(root, 'node_modules', file.slice(linkedModules.length + 1)) : file).split(sep).join('/');
const parts = [
  `'use strict';
// Generated by build/bundle.mjs from dist/src and node_modules; do not edit.
const __path = require('node:path');
const __url = require('node:url');
const { createRequire: __createRequire } = require('node:module');
const __root = __path.join(__dirname, '..');
const __cache = new Map();
function __load(id) {
  let module = __cache.get(id);
  if (module) return module.exports;
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
const __modules = [`,
];
for (const [file, { code, deps }] of modules) {
  const table = Object.fromEntries(Object.entries(deps).map(([spec, target]) => [spec, ids.get(target)]));
  parts.push(`[${JSON.stringify(rel(file))}, ${JSON.stringify(table)}, function (module, exports, require, __filename, __dirname, __meta) {\n${code}\n}],`);
}
parts.push(`];\nmodule.exports = __load(module.webwatchEntry === 'convert-worker' ? ${ids.get(realpathSync(workerEntry))} : ${ids.get(realpathSync(entry))});\n`);
writeFileSync(output, parts.join('\n'));
rmSync(`${output}.cache`, { force: true });
const notAscii = [...modules].filter(([, { code }]) => /[^\x00-\x7f]/.test(code)).map(([file]) => rel(file));
console.log(`${rel(output)}: ${modules.size} modules, ${(statSync(output).size / 1024 / 1024).toFixed(1)} MiB${notAscii.length > 0 ? `; not ASCII (read more slowly): ${notAscii.join(', ')}` : ', ASCII'}`);

// The code cache, from a real scrape (fresh engine home and config, so nothing of the user's is touched).
const page = '<!doctype html><html><head><title>Warm-up</title></head><body><main><h1>Warm-up</h1><p>A page, with a paragraph, scraped once so that the code it needs is in the cache.</p></main></body></html>';
const server = createServer((request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const home = mkdtempSync(join(tmpdir(), 'webwatch-bundle-'));
const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), WEBWATCH_BUNDLE: '1' };
delete env.WEBWATCH_API_URL;
const code = await new Promise((done) => {
  const child = spawn(process.execPath, [join(root, 'bin/webwatch.js'), 'scrape', `http://127.0.0.1:${server.address().port}/`, '--max-age', '0'], { env, cwd: home, stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('close', done);
});
server.close();
rmSync(home, { recursive: true, force: true });
if (code !== 0) {
  // The bundle itself is checked by the end-to-end tests; a cache missing here is written by the first run.
  console.error(`warning: the warm-up scrape through the bundle failed (exit ${code}); no code cache yet`);
} else if (existsSync(`${output}.cache`)) {
  console.log(`${rel(output)}.cache: ${(statSync(`${output}.cache`).size / 1024 / 1024).toFixed(1)} MiB`);
}
