/**
 * An interact `code` request: the caller's program runs in a process of its own (code-child.ts),
 * whose `page` calls come back here over a pipe and run on the session's page (page-calls.ts),
 * one after another. The program is stopped at its timeout (`killed`), its output is cut at
 * OUTPUT_MAX_BYTES a stream (`truncated`), and its heap is capped.
 *
 * A program is node (code-child.ts) or python (code-child-python.ts, Debian's python3, its
 * address space capped). On the command line's own engine the program is the user's and runs
 * as a plain child process with an empty environment. Under serve (`sandbox`) it runs inside bubblewrap: every namespace
 * its own (no network at all, not even loopback: the page's requests are made here, by the
 * browser, under the page's request check), of the file system only the system's programs
 * (/usr), Node and this one script, read-only, and an empty /tmp; it dies with the server.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { existsSync } from 'node:fs';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { findTool } from '../tools/child-tools.js';
import { PYTHON_CHILD } from './code-child-python.js';
import { runPageSteps, type PageStep } from './page-calls.js';

/** What one stream of the program keeps; the rest is cut, and the answer says `truncated`. */
export const OUTPUT_MAX_BYTES = 64 * 1024;
/** The program's JavaScript heap, in MiB. */
export const CODE_HEAP_MB = 128;
/** The longest line of a call the program may send (a call with a huge argument is a runaway). */
const CALL_MAX_CHARS = 1024 * 1024;
/**
 * How long a program's process may take to start (bubblewrap, then Node or Python) before its
 * timeout begins: the timeout is the program's running time, whatever the machine's load.
 */
const START_MAX_MS = 30_000;

export interface CodeRun {
  code: string;
  /** node (code-child.ts), or python (code-child-python.ts, Debian's python3). */
  language?: 'node' | 'python';
  timeoutMs: number;
  /** Inside bubblewrap (serve); else a plain child process (the command line's own engine). */
  sandbox: boolean;
  signal?: AbortSignal;
}

export interface CodeResult {
  /** The program's value: an expression's, or what it returned ('' for none). */
  result: string;
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Stopped at its timeout (or cancelled). */
  killed: boolean;
  /** stdout or stderr was longer than OUTPUT_MAX_BYTES and was cut. */
  truncated: boolean;
  /** The program's own error, when it threw. */
  error?: string;
}

const CHILD = fileURLToPath(new URL('./code-child.js', import.meta.url));

/** Debian's python3, which the sandbox holds (its /usr); undefined where there is none. */
export const PYTHON = '/usr/bin/python3';
export const pythonAvailable = () => existsSync(PYTHON);
/** A Python program's address space, in MiB (Node's heap has its own cap above; V8 reserves far more address space than it uses). */
const PYTHON_ADDRESS_SPACE_MB = 1024;

function command(sandbox: boolean, language: 'node' | 'python'): string[] {
  const program =
    language === 'python'
      ? ['/bin/sh', '-c', 'ulimit -v "$1" 2>/dev/null; shift; exec "$@"', 'sh', String(PYTHON_ADDRESS_SPACE_MB * 1024), PYTHON, '-I', '-c', PYTHON_CHILD]
      : [process.execPath, `--max-old-space-size=${CODE_HEAP_MB}`, CHILD];
  if (!sandbox) return program;
  let bwrap: string;
  try {
    bwrap = findTool('bwrap');
  } catch {
    throw new WebwatchError('interact code runs inside bubblewrap on this server, and bwrap was not found on PATH', {
      status: 501,
      code: 'INTERACT_SANDBOX_NOT_FOUND',
      suggestion: "install Debian's bubblewrap (apt-get install bubblewrap)",
    });
  }
  const readOnly = (path: string) => ['--ro-bind', path, path];
  return [
    bwrap,
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    // The empty /tmp first: Node or webwatch itself may live under /tmp, and a bind made before
    // it would be hidden by it.
    '--tmpfs',
    '/tmp',
    ...readOnly('/usr'),
    ...['bin', 'sbin', 'lib', 'lib64'].flatMap((name) => ['--symlink', `usr/${name}`, `/${name}`]),
    ...readOnly(process.execPath),
    ...readOnly(dirname(CHILD)),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--chdir',
    '/tmp',
    ...program,
  ];
}

export function runCode(page: Page, run: CodeRun): Promise<CodeResult> {
  // Refused before the program starts (no sandbox): a rejection, not a run that failed.
  let argv: string[];
  try {
    argv = command(run.sandbox, run.language ?? 'node');
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const [file, ...args] = argv;
    // Nothing of webwatch's environment (keys, database URLs) reaches the program.
    const child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    const channel = child.stdio[3] as Duplex;
    const output = { stdout: '', stderr: '' };
    let truncated = false;
    let killed = false;
    let started = false;
    let outcome: { result?: string; error?: string } = {};
    const stop = () => {
      killed = true;
      child.kill('SIGKILL');
    };
    // Until the program says it started, only the start-up limit runs; then its own timeout.
    let timer = setTimeout(stop, START_MAX_MS);
    run.signal?.addEventListener('abort', stop, { once: true });
    for (const stream of ['stdout', 'stderr'] as const) {
      const readable = child[stream]!;
      readable.setEncoding('utf8');
      readable.on('data', (chunk: string) => {
        const room = OUTPUT_MAX_BYTES - Buffer.byteLength(output[stream]);
        if (Buffer.byteLength(chunk) > room) {
          truncated = true;
          output[stream] += Buffer.from(chunk)
            .subarray(0, Math.max(0, room))
            .toString('utf8')
            .replace(/\uFFFD$/, '');
        } else output[stream] += chunk;
      });
    }
    // The page's calls, one at a time, in the order sent.
    let calls: Promise<void> = Promise.resolve();
    let buffered = '';
    channel.setEncoding('utf8');
    channel.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > CALL_MAX_CHARS && !buffered.includes('\n')) return stop();
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let message: { id?: number; steps?: PageStep[]; type?: string; result?: string; error?: string };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return stop();
        }
        if (message.type === 'started') {
          // Once only: a program that writes the line again does not win itself more time.
          if (!started && !killed) {
            started = true;
            clearTimeout(timer);
            timer = setTimeout(stop, run.timeoutMs);
          }
          continue;
        }
        if (message.type === 'result') {
          outcome = {
            ...(typeof message.result === 'string' && { result: message.result }),
            ...(typeof message.error === 'string' && { error: message.error }),
          };
          continue;
        }
        const { id, steps } = message;
        if (typeof id !== 'number' || !Array.isArray(steps)) return stop();
        calls = calls.then(async () => {
          const answer = await runPageSteps(page, steps).then(
            (value) => ({ id, ok: true, value }),
            (error: unknown) => ({ id, ok: false, error: error instanceof Error ? error.message.split('\n')[0] : String(error) }),
          );
          if (!channel.destroyed && !killed) channel.write(`${JSON.stringify(answer)}\n`);
        });
      }
    });
    channel.on('error', () => undefined);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', stop);
      resolve({
        result: outcome.result ?? '',
        stdout: output.stdout,
        stderr: output.stderr,
        exitCode: code ?? (signal ? 128 + 9 : 1),
        killed,
        truncated,
        ...(outcome.error !== undefined && { error: outcome.error }),
      });
    });
    channel.write(`${JSON.stringify({ type: 'run', code: run.code })}\n`);
  });
}
