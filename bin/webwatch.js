#!/usr/bin/env node
// Thin launcher: only this file calls process.exit. The handlers come first, so Ctrl-C exits
// 130 even while modules load.
process.on('SIGINT', () => process.exit(130));
process.stdout.on('error', (error) => {
  // A closed pipe (`webwatch ... | head`) is not a failure of webwatch.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
const { main, processIo } = await import('../dist/src/cli/main.js');
process.exitCode = await main(process.argv.slice(2), processIo());
