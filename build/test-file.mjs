#!/usr/bin/env node
// npm run test:file -- FILE... [OPTION...]: compiles what changed (build/compile.mjs), then runs
// the test files named with node --test. A file is named by its source (test/engine/diff.test.ts)
// or compiled (dist/test/engine/diff.test.js); the other arguments, such as
// --test-name-pattern=PATTERN, go to node --test as they are, before the files (node reads the
// arguments after a file as the test's own). The whole suite stays `npm test`
// (docs/development.md).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from './compile.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const exists = (file) => existsSync(join(root, file));
const isTestFile = (arg) => /\.test\.(ts|js)$/.test(arg);
const given = process.argv.slice(2);
const named = given.filter(isTestFile);
const options = given.filter((arg) => !isTestFile(arg));
/** Each file named, as compiled: test/x.test.ts is run as dist/test/x.test.js. */
const files = named.map((file) => file.replace(/^(?:\.\/)?(test\/.+)\.ts$/, 'dist/$1.js'));
if (files.length === 0) {
  process.stderr.write('usage: npm run test:file -- test/DIR/NAME.test.ts... [--test-name-pattern=PATTERN]\n');
  process.exit(2);
}
const sourceOf = (file) => file.replace(/^dist\/(test\/.+)\.js$/, '$1.ts');
const unknown = named.filter((_, index) => !exists(files[index]) && !exists(sourceOf(files[index])));
if (unknown.length > 0) {
  process.stderr.write(`error: no such test file: ${unknown.join(', ')}\n`);
  process.exit(2);
}
const missing = () => files.filter((file) => !exists(file));
let status = compile();
// A compiled file removed by hand is not written again by an incremental compile: a whole one does.
if (status === 0 && missing().length > 0) status = compile({ whole: true });
if (status !== 0) process.exit(status);
if (missing().length > 0) {
  process.stderr.write(`error: the compile wrote no ${missing().join(', ')}\n`);
  process.exit(1);
}
const { status: tested, error } = spawnSync(process.execPath, ['--test', ...options, ...files], { cwd: root, stdio: 'inherit' });
if (error) throw error;
process.exit(tested ?? 1);
