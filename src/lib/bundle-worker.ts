/**
 * Worker threads started from the CLI's bundle (build/bundle.mjs) when it is as new as the
 * worker's compiled module: a worker run from the bundle, with V8's code cache of it, is ready in
 * a fraction of the time that loading its modules one by one takes (about 0.1-0.2 s of CPU a
 * worker). Without a current bundle (a bare tsc build, tests of other modules) the compiled
 * module itself runs.
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker, WorkerOptions } from 'node:worker_threads';

const BUNDLE = new URL('../../webwatch.cjs', import.meta.url);

/** The bundle, when it is as new as `module`. */
function currentBundle(module: URL): string | undefined {
  try {
    const bundle = fileURLToPath(BUNDLE);
    return statSync(bundle).mtimeMs >= statSync(fileURLToPath(module)).mtimeMs ? bundle : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs the bundle at a worker's entry, as bin/webwatch.js runs it at the CLI's: the same
 * wrapper, so the same code caches, and the chunks of dist/webwatch/ compiled the same way. A
 * thread is given the bundle and its entry in its workerData, a child process as its arguments.
 */
const BUNDLE_LOADER = `
const { readFileSync } = require('node:fs');
const { dirname } = require('node:path');
const { Script } = require('node:vm');
const { workerData } = require('node:worker_threads');
function run(file, module) {
  let cachedData;
  try { cachedData = readFileSync(file + '.cache'); } catch {}
  const source = readFileSync(file, 'utf8');
  const script = new Script('(function (exports, require, module, __filename, __dirname, __compile) {' + source + '\\n})', { filename: file, ...(cachedData && { cachedData }) });
  script.runInThisContext()(module.exports, require, module, file, dirname(file), (chunk) => run(chunk, { exports: {} }));
  return module.exports;
}
run(workerData ? workerData.bundle : process.argv[1], { exports: {}, webwatchEntry: workerData ? workerData.entry : process.argv[2] });
`;

/**
 * A worker at `entry`, one of the bundle's worker entries, whose compiled module is `module`.
 * `Worker` is passed in: node:worker_threads loads only where a worker is started.
 */
export function bundleWorker(WorkerClass: typeof Worker, entry: string, module: URL, options: Omit<WorkerOptions, 'eval' | 'workerData'>): Worker {
  const bundle = currentBundle(module);
  return bundle ? new WorkerClass(BUNDLE_LOADER, { ...options, eval: true, workerData: { bundle, entry } }) : new WorkerClass(module, options);
}

/**
 * The arguments of a Node child process that runs `entry`, one of the bundle's worker entries,
 * whose compiled module is `module`: from the bundle when it is current, else the module.
 */
export function bundleProcessArgs(entry: string, module: URL): string[] {
  const bundle = currentBundle(module);
  return bundle ? ['-e', BUNDLE_LOADER, bundle, entry] : [fileURLToPath(module)];
}
