#!/usr/bin/env node
'use strict';
// Thin launcher: only this file calls process.exit. It is CommonJS (see bin/package.json)
// because Node starts a CommonJS entry faster; the CLI itself is ESM, loaded by import().
// The handlers come first, so Ctrl-C exits 130 even while modules load.
process.on('SIGINT', () => process.exit(130));
// npm only warns when `engines` does not match: an older Node gets one plain line, not the
// syntax or module errors it would stumble on further in.
if (Number(process.versions.node.split('.')[0]) < 20) {
  process.stderr.write(`webwatch needs Node.js 20 or newer; this is ${process.version}\n`);
  process.exit(1);
}
process.stdout.on('error', (error) => {
  // A closed pipe (`webwatch ... | head`) is not a failure of webwatch.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Scripts and version managers ask this often: answer without loading the command tree.
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  const cli = loadBundle() ?? import('../dist/src/cli/main.js');
  Promise.resolve(cli)
    .then(({ main, processIo }) => main(args, processIo()))
    .then((code) => {
      process.exitCode = code;
    });
}

/**
 * The CLI as one file (dist/webwatch.cjs, made by build/bundle.mjs), compiled from V8's code
 * cache beside it: loading some 330 modules one by one was most of a command's start-up. The
 * cache is written after the first run with this Node (a best effort: an installation may be
 * read-only). Not used when it is older than the compiled sources, or WEBWATCH_BUNDLE=0.
 */
function loadBundle() {
  if (process.env.WEBWATCH_BUNDLE === '0') return undefined;
  const fs = require('node:fs');
  const path = require('node:path');
  const file = path.join(__dirname, '../dist/webwatch.cjs');
  let source;
  try {
    if (fs.statSync(file).mtimeMs < fs.statSync(path.join(__dirname, '../dist/src/cli/main.js')).mtimeMs) return undefined;
    source = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const vm = require('node:vm');
  const cacheFile = `${file}.cache`;
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // First run: compiled from source, cached at exit.
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, ...(cachedData && { cachedData }) });
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => {
      try {
        const temporary = `${cacheFile}.${process.pid}`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cacheFile);
      } catch {
        // Read-only installation: every run compiles, as without the cache.
      }
    });
  }
  const bundle = { exports: {} };
  script.runInThisContext()(bundle.exports, require, bundle, file, path.dirname(file));
  return bundle.exports;
}
