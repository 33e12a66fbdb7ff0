/** A fake Io for running `main` in-process: captured streams, a chosen environment and clock. */
import type { Io } from '../../src/ui/io.js';
import { main } from '../../src/cli/main.js';
import { tempDir } from './files.js';

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

export interface FakeIoOptions {
  env?: Record<string, string | undefined>;
  /** Standard input: text, or bytes to test what is not valid UTF-8. */
  stdin?: string | Uint8Array;
  tty?: boolean;
  /** The terminal's width, when tty (a pseudo-terminal nobody sized says 0). */
  columns?: number;
  /** A fixed instant, or a clock (a test of retries over real time passes () => new Date()). */
  now?: Date | (() => Date);
  cwd?: string;
  /** Answers to prompts, in order. */
  answers?: string[];
}

export function fakeIo(options: FakeIoOptions = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    // Both streams are the one terminal: the same width.
    stdout: { write: (chunk: string) => out.push(chunk), isTTY: options.tty ?? false, ...(options.columns !== undefined && { columns: options.columns }) },
    stderr: {
      write: (chunk: string) => err.push(chunk),
      isTTY: options.tty ?? false,
      ...(options.columns !== undefined && { columns: options.columns }),
      // What a spinner (ora) calls on a terminal's stream; the lines it clears stay in the capture.
      ...(options.tty && { cursorTo: () => true, clearLine: () => true, moveCursor: () => true }),
    },
    stdinIsTTY: options.tty ?? false,
    readStdin: async () => Buffer.from(options.stdin ?? '').toString('utf8'),
    readStdinBytes: async (maxBytes: number) => Buffer.from(options.stdin ?? '').subarray(0, maxBytes + 1),
    // Each run gets its own engine home unless the test shares one on purpose.
    env: { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), ...options.env },
    now: () => (typeof options.now === 'function' ? options.now() : (options.now ?? new Date('2026-11-21T12:00:00Z'))),
    prompt: async (question: string, _options?: { secret?: boolean }) => {
      err.push(question);
      return options.answers?.shift() ?? '';
    },
    // A directory with no configuration above it, unless a test gives one.
    cwd: () => options.cwd ?? tempDir(),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

/** Runs webwatch in-process and returns exit code and both streams. */
export async function run(argv: string[], options: FakeIoOptions = {}): Promise<Captured> {
  const fake = fakeIo(options);
  const code = await main(argv, fake.io);
  return { code, stdout: fake.stdout(), stderr: fake.stderr() };
}
