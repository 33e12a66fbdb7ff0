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
  import('../dist/src/cli/main.js')
    .then(({ main, processIo }) => main(args, processIo()))
    .then((code) => {
      process.exitCode = code;
    });
}
