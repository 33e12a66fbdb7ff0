/**
 * Where everything a command prints goes: data on stdout, messages on stderr, colour only for
 * people (a TTY, no NO_COLOR, no TERM=dumb, no --no-color).
 */
import type { Io, OutputStream } from './io.js';
import { colorStyle, plainStyle, type Style } from './style.js';

export interface OutputOptions {
  json: boolean;
  color: boolean;
  quiet: boolean;
}

/** Colour only when it reaches a person's terminal and nobody asked for none. */
export function colorWanted(stream: OutputStream, env: Io['env'], flag: boolean): boolean {
  if (!flag || !stream.isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return true;
}

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  /** Styles for stdout and stderr, each off unless that stream is a colour terminal. */
  readonly style: Style;
  readonly errorStyle: Style;
  readonly interactive: boolean;
  /** Whether stdout is a terminal (tables) or a pipe (tab-separated rows). */
  readonly tty: boolean;
  readonly columns: number | undefined;

  private constructor(private readonly io: Io, options: OutputOptions, style: Style, errorStyle: Style) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.style = style;
    this.errorStyle = errorStyle;
    this.interactive = Boolean(io.stdout.isTTY && io.stdinIsTTY) && !io.env.CI;
    this.tty = Boolean(io.stdout.isTTY);
    this.columns = io.stdout.columns;
  }

  static async create(io: Io, options: OutputOptions): Promise<Output> {
    const outColor = colorWanted(io.stdout, io.env, options.color);
    const errColor = colorWanted(io.stderr, io.env, options.color);
    const color = outColor || errColor ? await colorStyle() : plainStyle;
    return new Output(io, options, outColor ? color : plainStyle, errColor ? color : plainStyle);
  }

  /** Data for stdout. */
  data(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** One JSON document on stdout. */
  jsonDocument(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A message for people on stderr; dropped with --quiet. */
  info(text: string): void {
    if (!this.quiet) this.io.stderr.write(`${text}\n`);
  }

  /** A note for a person at a terminal (which engine acts, say): stderr, TTY only. */
  notice(text: string): void {
    if (!this.quiet && this.io.stderr.isTTY) this.io.stderr.write(`${this.errorStyle.dim(text)}\n`);
  }

  /** A problem on stderr, shown even with --quiet. */
  problem(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }
}
