#!/usr/bin/env node
'use strict';
// Thin launcher: only this file calls process.exit. It is CommonJS (see bin/package.json)
// because Node starts a CommonJS entry faster; the CLI itself is ESM, loaded by import().
// The handlers come first, so Ctrl-C exits 130 even while modules load. Every command says why
// it stopped, as those that clean up first (scrape, crawl, agent) do: on stderr, or as the one
// JSON document of --json. The spinner's line, on a terminal, is cleared first.
process.on('SIGINT', () => {
  if (process.argv.includes('--json')) process.stdout.write('{\n  "success": false,\n  "error": "interrupted",\n  "code": "INTERRUPTED"\n}\n');
  else process.stderr.write(`${process.stderr.isTTY ? '\r\x1b[K' : ''}error: interrupted\n`);
  process.exit(130);
});
// npm only warns when `engines` does not match: an older Node gets one plain line, not the
// errors it would stumble on further in (its SQLite module needs Node-API 10, from 22.14, and
// crashes an older Node outright).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 14)) {
  process.stderr.write(
    `webwatch needs Node.js 22.14 or newer (22, 24 or 26); this is ${process.version}\n` +
      `hint: run it on Node.js 24 from the npm registry, in this shell: export PATH="$(npx -y -p node@24 -c 'dirname "$(realpath "$(command -v node)")"'):$PATH"\n`,
  );
  process.exit(1);
}
/** Set when the command has returned its exit code, or when its reader went away. */
let finished = false;
process.stdout.on('error', (error) => {
  // A closed pipe (`webwatch ... | head`) is not a failure of webwatch.
  if (error.code === 'EPIPE') {
    finished = true;
    process.exit(process.exitCode ?? 0);
  }
  throw error;
});

/** The code caches of the bundle to write at exit, by file: with what this run compiled. */
const uncached = new Map();

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Scripts and version managers ask this often: answer without loading the command tree.
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  const cli = loadBundle() ?? import('../dist/src/cli/main.js');
  // A command whose work still waits on something that no longer keeps Node running (an unref'd
  // timer, a dropped promise) would end here with 0 and nothing done: it is a failure, said so.
  process.on('exit', (code) => {
    if (finished || code !== 0) return;
    process.stderr.write('error: internal error: webwatch stopped before the command finished (nothing was left to wait for)\n');
    process.exitCode = 1;
  });
  Promise.resolve(cli)
    .then(({ main, processIo }) => main(args, processIo()))
    .then((code) => {
      finished = true;
      process.exitCode = code;
      // The command has said all it has to say: what it started and left (a check abandoned by
      // Ctrl-C, whose page would hold the process until its timeout; an idle keep-alive socket)
      // does not keep the process, once both streams have written what they hold.
      let pending = 2;
      const flushed = () => --pending === 0 && process.exit(code);
      process.stdout.write('', flushed);
      process.stderr.write('', flushed);
    });
}

/**
 * The CLI bundled (dist/webwatch.cjs and its chunks in dist/webwatch/, made by build/bundle.mjs),
 * each file compiled from V8's code cache beside it: loading some 900 modules one by one was most
 * of a command's start-up. Not used when it is older than the compiled sources, or
 * WEBWATCH_BUNDLE=0.
 */
function loadBundle() {
  if (process.env.WEBWATCH_BUNDLE === '0') return undefined;
  const fs = require('node:fs');
  const path = require('node:path');
  const file = path.join(__dirname, '../dist/webwatch.cjs');
  try {
    if (fs.statSync(file).mtimeMs < fs.statSync(path.join(__dirname, '../dist/src/cli/main.js')).mtimeMs) return undefined;
  } catch {
    return undefined;
  }
  return runCompiled(file);
}

/**
 * Runs a file of the bundle as a CommonJS module and returns its exports; the bundle calls it
 * again for each chunk it needs. Compiled from the code cache beside the file (FILE.cache), which
 * is written at exit when missing or rejected (a best effort: an installation may be read-only),
 * or always with WEBWATCH_BUNDLE_CACHE=refresh, so that the build's warm-up runs add up in it.
 */
function runCompiled(file) {
  const fs = require('node:fs');
  const path = require('node:path');
  const vm = require('node:vm');
  const source = fs.readFileSync(file, 'utf8');
  const cacheFile = `${file}.cache`;
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // First run: compiled from source, cached at exit.
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __compile) {${source}\n})`, {
    filename: file,
    ...(cachedData && { cachedData }),
  });
  if (!cachedData || script.cachedDataRejected || process.env.WEBWATCH_BUNDLE_CACHE === 'refresh') {
    if (uncached.size === 0) process.once('exit', writeCaches);
    uncached.set(cacheFile, script);
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, file, path.dirname(file), runCompiled);
  return module.exports;
}

function writeCaches() {
  const fs = require('node:fs');
  for (const [cacheFile, script] of uncached) {
    try {
      const temporary = `${cacheFile}.${process.pid}`;
      fs.writeFileSync(temporary, script.createCachedData());
      fs.renameSync(temporary, cacheFile);
    } catch {
      // Read-only installation: every run compiles, as without the cache.
    }
  }
}
