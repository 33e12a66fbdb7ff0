/**
 * Where everything a command prints goes: data on stdout, messages on stderr, colour only for
 * people (a TTY, no NO_COLOR, no FORCE_COLOR=0, no TERM=dumb, no --no-color). Text from outside
 * never reaches a terminal with its control characters: messages are always escaped, data on a
 * terminal.
 */
import type { Io, OutputStream } from './io.js';
import { colorStyle, plainStyle, type Style } from './style.js';
import { escapeControls, messageStyle, Styled, type MessageStyle } from './terminal-text.js';

export interface OutputOptions {
  json: boolean;
  color: boolean;
  quiet: boolean;
  /** false with --no-pager. */
  pager?: boolean;
}

/** Colour only when it reaches a person's terminal and nobody asked for none. */
export function colorWanted(stream: OutputStream, env: Io['env'], flag: boolean): boolean {
  if (!flag || !stream.isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  // The other common way to ask for none. FORCE_COLOR=1 forces nothing: a pipe gets no colour.
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.TERM === 'dumb') return false;
  return true;
}

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  /** Styles for stdout and stderr, each off unless that stream is a colour terminal. */
  readonly style: Style;
  readonly errorStyle: Style;
  /**
   * stderr's colours for messages: each escapes the text it is given, then colours it, as in
   * `output.info(output.messageStyle.green(line))`; styledLine joins such pieces with others.
   * errorStyle's colours leave escaping to the caller.
   */
  readonly messageStyle: MessageStyle;
  readonly interactive: boolean;
  /** Whether stdout is a terminal (tables) or a pipe (tab-separated rows). */
  readonly tty: boolean;
  readonly columns: number | undefined;
  /** The same of stderr, for a table among the messages. */
  readonly errorTty: boolean;
  readonly errorColumns: number | undefined;
  private live: LiveLine | undefined;

  private constructor(
    private readonly io: Io,
    private readonly options: OutputOptions,
    style: Style,
    errorStyle: Style,
  ) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.style = style;
    this.errorStyle = errorStyle;
    this.messageStyle = messageStyle(errorStyle);
    this.interactive = Boolean(io.stdout.isTTY && io.stdinIsTTY) && !io.env.CI;
    this.tty = Boolean(io.stdout.isTTY);
    this.columns = io.stdout.columns;
    this.errorTty = Boolean(io.stderr.isTTY);
    this.errorColumns = io.stderr.columns;
  }

  static async create(io: Io, options: OutputOptions): Promise<Output> {
    const outColor = colorWanted(io.stdout, io.env, options.color);
    const errColor = colorWanted(io.stderr, io.env, options.color);
    const color = outColor || errColor ? await colorStyle() : plainStyle;
    return new Output(io, options, outColor ? color : plainStyle, errColor ? color : plainStyle);
  }

  /**
   * A piece from outside for a Styled line of data: escaped on a terminal, as it is when piped,
   * where data stays byte for byte what it was.
   */
  dataPiece(text: string): string {
    return this.tty ? escapeControls(text) : text;
  }

  /** The command's clock (tables show times relative to it). */
  now(): Date {
    return this.io.now();
  }

  /**
   * A line redrawn in place on stderr (a spinner) while the command runs: cleared before
   * anything else is written and drawn again after, so it never glues itself to a line of output.
   */
  setLive(live: LiveLine | undefined): void {
    this.live = live;
  }

  private write(stream: OutputStream, text: string): void {
    if (!this.live) return void stream.write(text);
    this.live.clear();
    stream.write(text);
    this.live.render();
  }

  /** Data for stdout. */
  data(text: string | Styled): void {
    const shown = text instanceof Styled ? text.text : this.dataPiece(text);
    this.write(this.io.stdout, shown.endsWith('\n') ? shown : `${shown}\n`);
  }

  /**
   * Long data for a person (diffs): through $PAGER (less by default) when stdout and stdin are
   * a terminal and the text is taller than it; printed as data otherwise, or with --no-pager,
   * or when the pager cannot be run.
   */
  async page(text: Styled): Promise<void> {
    const { io } = this;
    const command = io.env.WEBWATCH_PAGER ?? io.env.PAGER ?? 'less';
    const fits = text.text.split('\n').length < (io.stdout.rows ?? Infinity);
    const paging = this.options.pager !== false && this.tty && io.stdinIsTTY && !fits && command.trim() !== '' && command.trim() !== 'cat' && io.runPager;
    if (paging && (await io.runPager!(command, text.text.endsWith('\n') ? text.text : `${text.text}\n`))) return;
    this.data(text);
  }

  /** One JSON document on stdout (JSON escapes control characters itself). */
  jsonDocument(value: unknown): void {
    this.write(this.io.stdout, `${JSON.stringify(value, null, 2)}\n`);
  }

  /** A message for people on stderr; dropped with --quiet. */
  info(text: string | Styled): void {
    if (!this.quiet) this.write(this.io.stderr, `${message(text)}\n`);
  }

  /** A note for a person at a terminal (which engine acts, say): stderr, TTY only. */
  notice(text: string): void {
    if (!this.quiet && this.io.stderr.isTTY) this.write(this.io.stderr, `${this.messageStyle.dim(text).text}\n`);
  }

  /** A problem on stderr, shown even with --quiet. */
  problem(text: string | Styled): void {
    this.write(this.io.stderr, `${message(text)}\n`);
  }
}

export interface LiveLine {
  clear(): void;
  render(): void;
}

/** Messages are for people, wherever stderr goes (a CI log renders escapes too): always escaped. */
const message = (text: string | Styled) => (text instanceof Styled ? text.text : escapeControls(text));
