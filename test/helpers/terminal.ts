/**
 * Runs webwatch on a real pseudo-terminal (`script` from util-linux) and reads back what a
 * person would see: the raw bytes, and the screen's lines once carriage returns, line erasures
 * and cursor moves are applied.
 */
import { spawn } from 'node:child_process';

const BIN = new URL('../../../bin/webwatch.js', import.meta.url).pathname;
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

export interface TerminalRun {
  code: number | null;
  raw: string;
  screen: string[];
}

export async function inTerminal(
  args: string[],
  options: { env: Record<string, string>; cols?: number; rows?: number; cwd?: string; before?: string },
): Promise<TerminalRun> {
  const { cols = 100, rows = 40 } = options;
  const command = `stty cols ${cols} rows ${rows}; ${options.before ? `${options.before}; ` : ''}exec ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { PATH: process.env.PATH!, TERM: 'xterm', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.cwd && { cwd: options.cwd }),
  });
  let raw = '';
  child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.end();
  return { code, raw, screen: screenOf(raw) };
}

/** The lines a terminal shows for `raw`: \r, \n, CSI K (erase), G (column), A (up); colours dropped. */
export function screenOf(raw: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char === '\x1b' && raw[i + 1] === '[') {
      const match = /^\x1b\[([?0-9;]*)([A-Za-z])/.exec(raw.slice(i));
      if (!match) continue;
      i += match[0].length - 1;
      const n = Number(match[1]) || 0;
      if (match[2] === 'K') lines[row] = n === 2 ? [] : lines[row]!.slice(0, col);
      else if (match[2] === 'G') col = Math.max(0, n - 1);
      else if (match[2] === 'A') row = Math.max(0, row - Math.max(1, n));
      continue;
    }
    if (char === '\r') col = 0;
    else if (char === '\n') {
      row++;
      lines[row] ??= [];
    } else {
      lines[row]![col++] = char;
    }
  }
  return lines.map((line) =>
    Array.from(line, (c) => c ?? ' ')
      .join('')
      .trimEnd(),
  );
}
