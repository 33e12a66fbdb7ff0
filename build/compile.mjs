#!/usr/bin/env node
// npm run compile: `tsc -p .` incrementally, for the edit-and-test loop (docs/development.md).
// Its build information, dist/.tsbuildinfo, lets tsc skip what has not changed: with nothing
// changed it only reads the sources, a few seconds instead of a whole type check and emit. npm
// test, npm run build and a bare `tsc -p .` still compile everything, without it. Two rules keep
// the two kinds of compile from misleading each other:
// - A full compile leaves the build information describing an older dist/ (a file changed, then
//   changed back, would not be written again). Every full compile writes dist/src/cli/main.js:
//   when it is newer than the build information, or gone, the build information is dropped and
//   this compile is a whole one.
// - The launcher runs the bundle when it is newer than dist/src/cli/main.js, which a full compile
//   always rewrites and an incremental one only when main.ts changed. So when this compile wrote
//   anything, main.js is touched: the bundle is older then, and the launcher runs the compiled
//   modules until `npm run build` bundles them again. The build information is touched with it,
//   so that the first rule keeps trusting it.
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const buildInfo = join(root, 'dist/.tsbuildinfo');
const main = join(root, 'dist/src/cli/main.js');
const modified = (file) => (existsSync(file) ? statSync(file).mtimeMs : undefined);

/**
 * Compiles what changed since the last compile of this kind, or everything with `whole`; returns
 * tsc's exit status.
 */
export function compile({ whole = false } = {}) {
  const known = modified(buildInfo);
  if (known !== undefined && (whole || (modified(main) ?? Number.POSITIVE_INFINITY) > known)) rmSync(buildInfo);
  const before = modified(buildInfo);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const { status, error } = spawnSync(process.execPath, [tsc, '-p', root, '--incremental', '--tsBuildInfoFile', buildInfo], { cwd: root, stdio: 'inherit' });
  if (error) throw error;
  const after = modified(buildInfo);
  if (after !== undefined && after !== before && existsSync(main)) {
    const now = new Date();
    utimesSync(main, now, now);
    utimesSync(buildInfo, now, now);
  }
  return status ?? 1;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = compile();
