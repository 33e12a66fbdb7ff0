/**
 * Following an agent run as a person sees it, in the spirit of `gh run watch`: the timeline of
 * events as they come, one status line on stderr that ticks while nothing happens (how long the
 * run has gone, what each agent waits for now and for how long, credits so far), and a summary
 * at the end. The status line is a spinner (progress.ts), so it exists only on a terminal,
 * without --quiet, --json or CI; the timeline and the summary are the caller's to place.
 */
import { AgentRunView, type RunSummary } from './agent-run-view.js';
import type { TraceEvent } from '../contract/agent.js';
import { duration, timelineLine } from './agent-timeline.js';
import type { Io } from './io.js';
import type { Output } from './output.js';
import { progressShown, startProgress } from './progress.js';
import type { Style } from './style.js';
import { cutTo } from './table.js';
import type { Styled } from './terminal-text.js';
import { plural } from '../lib/plural.js';

/** How often the status line's times move. */
const TICK_MS = 200;

export interface AgentLive {
  /** An event arrived: into the view, and its timeline line to `print`. */
  event(event: TraceEvent): void;
  credits(credits: number): void;
  summary(): RunSummary;
  stop(): void;
}

export interface AgentLiveOptions {
  /** Where each timeline line goes; absent: no timeline (piped, --json). */
  print?: (line: Styled) => void;
  /** The style of the timeline's stream. */
  style: Style;
  maxCredits?: number;
  /** Tests move the clock; the live line reads it on every tick. */
  now?: () => number;
}

/** `12.3 s · model turn 3, 4.2 s · 5 of 20 credits`; each agent at work named when there are several. */
export function statusText(view: AgentRunView, now: number): string {
  const parts = [duration(view.elapsed(now))];
  const doing = view.activities();
  for (const activity of doing) parts.push(`${doing.length > 1 ? `${activity.agent}: ` : ''}${activity.doing}, ${duration(now - activity.since)}`);
  if (view.credits !== undefined) parts.push(view.maxCredits !== undefined ? `${view.credits} of ${view.maxCredits} credits` : plural(view.credits, 'credit'));
  return parts.join(' · ');
}

/** `succeeded in 14.2 s: 4 model turns, 3 tool calls, 5 credits, 2 snapshots`. */
export function summaryText(summary: RunSummary): string {
  const counts = [
    ...(summary.modelTurns > 0 ? [plural(summary.modelTurns, 'model turn')] : []),
    plural(summary.toolCalls, 'tool call'),
    ...(summary.credits !== undefined ? [plural(summary.credits, 'credit')] : []),
    plural(summary.snapshots, 'snapshot'),
  ];
  return `${summary.outcome ?? 'still running'} in ${duration(summary.durationMs)}: ${counts.join(', ')}`;
}

export async function startAgentLive(io: Io, output: Output, options: AgentLiveOptions): Promise<AgentLive> {
  const now = options.now ?? Date.now;
  const view = new AgentRunView(options.maxCredits);
  // Drawn as often as its times move, not at ora's 80 ms: a follower waits for minutes at a time.
  const progress = await startProgress(io, output, 'waiting for the first event', { intervalMs: TICK_MS });
  const live = progressShown(io, output);
  let timer: NodeJS.Timeout | undefined;
  let fit = (text: string) => text;
  if (live) {
    const { default: stringWidth } = await import('string-width');
    // The spinner and a space go before the text; a line that wraps would be redrawn as two.
    const cut = cutTo(stringWidth);
    fit = (text) => cut(text, (io.stderr.columns ?? 80) - 3);
    const tick = () => progress.update(fit(statusText(view, now())));
    // The follow's own requests keep the process alive; the ticker must not on its own.
    timer = setInterval(tick, TICK_MS);
    timer.unref();
  }
  return {
    event(event) {
      const { durationMs } = view.see(event, now());
      // The status first: the spinner is drawn again below the new line with what it says now.
      if (live && !view.finished) progress.update(fit(statusText(view, now())));
      options.print?.(timelineLine(event, options.style, event.type === 'tool_call.finished' ? durationMs : undefined));
    },
    credits(credits) {
      view.credits = credits;
    },
    summary: () => view.summary(now()),
    stop() {
      if (timer) clearInterval(timer);
      progress.stop();
    },
  };
}
