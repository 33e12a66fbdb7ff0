#!/usr/bin/env node
// Thin launcher: only this file calls process.exit.
import { main, processIo } from '../dist/src/cli/main.js';

process.on('SIGINT', () => process.exit(130));
process.stdout.on('error', (error) => {
  // A closed pipe (`webwatch ... | head`) is not a failure of webwatch.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
process.exitCode = await main(process.argv.slice(2), processIo());
