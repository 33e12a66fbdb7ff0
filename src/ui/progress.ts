/**
 * Progress of long operations: an ora spinner on stderr for a person at a terminal, nothing
 * at all when stderr is piped, with --quiet, or with --json.
 */
import type { Io } from './io.js';
import type { Output } from './output.js';
import { plainStyle } from './style.js';
import { escapeControls } from './terminal-text.js';

export interface Progress {
  update(text: string): void;
  stop(): void;
}

const silent: Progress = { update: () => {}, stop: () => {} };

/** Whether a spinner shows: a person's terminal on stderr, without --quiet, --json or CI. */
export function progressShown(io: Io, output: Output): boolean {
  // A terminal of width 0 (a pseudo-terminal nobody sized, as `script` makes without one) has
  // ora clear endless lines, forever: no spinner there.
  return Boolean(io.stderr.isTTY) && !output.quiet && !output.json && !io.env.CI && io.stderr.columns !== 0;
}

/** `intervalMs`: how often the spinner is drawn (ora's default, 80 ms, when absent). */
export async function startProgress(io: Io, output: Output, text: string, options: { intervalMs?: number } = {}): Promise<Progress> {
  if (!progressShown(io, output)) return silent;
  const { default: ora } = await import('ora');
  // The text names URLs and monitors, which come from outside.
  // Output decides about colour; left to itself, ora would colour the spinner despite NO_COLOR.
  const color = output.errorStyle === plainStyle ? false : 'cyan';
  const spinner = ora({
    text: escapeControls(text),
    color,
    stream: io.stderr as NodeJS.WritableStream,
    discardStdin: false,
    ...(options.intervalMs && { interval: options.intervalMs }),
  }).start();
  // Whatever the command prints while it spins goes through Output, which clears the spinner first.
  output.setLive({ clear: () => spinner.clear(), render: () => spinner.render() });
  return {
    update: (next) => {
      spinner.text = escapeControls(next);
    },
    stop: () => {
      output.setLive(undefined);
      spinner.stop();
    },
  };
}
