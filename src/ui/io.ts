import type { Env } from '../lib/env.js';
/**
 * The streams and environment a command sees. `main` takes one, so commands run in-process in
 * tests with fake streams exactly as they run in a terminal.
 */

export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export interface Io {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Reads all of standard input as text. */
  readStdin(): Promise<string>;
  /**
   * Reads standard input as bytes, for callers that decode and check it themselves, and stops
   * once more than `maxBytes` have come: a longer input yields `maxBytes + 1` bytes.
   */
  readStdinBytes(maxBytes: number): Promise<Uint8Array>;
  stdinIsTTY: boolean;
  env: Env;
  /** The working directory, where the project configuration is searched from. */
  cwd(): string;
  /** Asks a person a question on the terminal and returns the answer; a secret one is not echoed. */
  prompt(question: string, options?: { secret?: boolean }): Promise<string>;
  /** The current time; injectable so output with times is testable. */
  now(): Date;
  /**
   * Shows text through a pager command (run by the shell, on the terminal); false when the
   * command could not be run, so the caller prints the text itself. Absent where there is no
   * terminal to page on.
   */
  runPager?(command: string, text: string): Promise<boolean>;
}

async function stdinBytes(maxBytes = Infinity): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    // Leaving the loop destroys the stream: endless input (`yes |`) is not read to its end.
    if (length > maxBytes) break;
  }
  return Buffer.concat(chunks).subarray(0, maxBytes + 1);
}

/**
 * A line typed on the terminal without echo (a key, a password): raw mode, so nothing typed or
 * pasted is shown; backspace edits, Enter ends, Ctrl-C interrupts as it would anywhere else.
 */
function readHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Raw before the question shows: a key typed or pasted the moment it appears is not echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          finish();
          process.kill(process.pid, 'SIGINT');
          return;
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    stdin.on('data', onData);
  });
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Read when asked: process.stdin is made on first use, and making it costs a command that
    // never reads stdin some 2-3 ms of loading stream modules.
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    readStdin: async () => (await stdinBytes()).toString('utf8'),
    readStdinBytes: (maxBytes) => stdinBytes(maxBytes),
    env: process.env,
    cwd: () => process.cwd(),
    async prompt(question, options = {}) {
      if (options.secret && process.stdin.isTTY) return readHidden(question);
      const { createInterface } = await import('node:readline/promises');
      const reader = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await reader.question(question);
      } finally {
        reader.close();
      }
    },
    now: () => new Date(),
    async runPager(command, text) {
      const { spawn } = await import('node:child_process');
      return new Promise((resolve) => {
        // less: quit when the text fits (-F), keep colours (-R), leave the text on screen (-X).
        const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', LV: '-c', ...process.env } });
        child.on('error', () => resolve(false));
        // A pager quit before reading everything (q in less) is not a failure.
        child.stdin.on('error', () => {});
        // 127: the shell found no such command, and nothing was shown.
        child.on('close', (code) => resolve(code !== 127));
        child.stdin.end(text);
      });
    },
  };
}
