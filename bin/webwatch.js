#!/usr/bin/env node
// Thin launcher: only this file calls process.exit. The handlers come first, so Ctrl-C exits
// 130 even while modules load.
process.on('SIGINT', () => process.exit(130));
process.stdout.on('error', (error) => {
  // A closed pipe (`webwatch ... | head`) is not a failure of webwatch.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Scripts and version managers ask this often: answer without loading the command tree.
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const { main, processIo } = await import('../dist/src/cli/main.js');
  process.exitCode = await main(args, processIo());
}
