/** `agent run|status|list|trace|snapshot|cancel`: flags -> backend -> a timeline, JSON lines or the result. */
import { interruptible } from '../interrupt.js';
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Backend } from '../../services/interfaces.js';
import { resolveIdPrefix } from '../../services/id-prefix.js';
import { resolveAgentRef } from '../../core/agent/agent-ref.js';
import { outcomeExitCode, TraceFollower } from '../../core/agent/follow.js';
import { AgentRunView, type RunSummary } from '../../ui/agent-run-view.js';
import type { AgentStatusDocument, RunOutcome } from '../../contract/agent.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { validateAgentRequest, type AgentRequestInput } from '../../spec/agent.js';
import { formatPath } from '../../spec/issues.js';
import { startAgentLive, summaryText } from '../../ui/agent-live.js';
import { timelineLine } from '../../ui/agent-timeline.js';
import type { Output } from '../../ui/output.js';
import { styledLine, type Styled } from '../../ui/terminal-text.js';
import { renderRows } from '../../ui/table.js';
import { openBackend, withBackend } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { readSchemaFile } from '../schema-file.js';

const runFlags = z.object({
  url: z.array(z.string()).optional(),
  schema: z.string().optional(),
  maxCredits: z.coerce.number().int().min(1).optional(),
  effort: z.enum(['low', 'medium', 'high']).optional(),
  detach: z.boolean().optional(),
  output: z.string().optional(),
});

/** Ctrl-C while following: stop following and say how to cancel, unless the job runs here. */
const stopOnInterrupt = interruptible;

interface Followed {
  /** How the run ended; undefined when following was stopped (Ctrl-C). */
  outcome: RunOutcome | undefined;
  summary: RunSummary;
}

/**
 * Follows a job to its end: each event to `print` (a timeline line) or as a JSON line on stdout,
 * the live status line on a terminal's stderr, and the summary for a person at the end.
 */
async function follow(
  context: CommandContext,
  backend: Backend,
  id: string,
  options: { since?: number; maxCredits?: number; timeline: 'stderr' | 'stdout' | 'json-lines' | 'none' },
): Promise<Followed> {
  const { io, output } = context;
  const print =
    options.timeline === 'stderr' ? (line: Styled) => output.info(line) : options.timeline === 'stdout' ? (line: Styled) => output.data(line) : undefined;
  const live = await startAgentLive(io, output, {
    style: options.timeline === 'stdout' ? output.style : output.errorStyle,
    ...(print && { print }),
    ...(options.maxCredits !== undefined && { maxCredits: options.maxCredits }),
  });
  const interrupt = stopOnInterrupt();
  const follower = new TraceFollower(backend, id, { since: options.since ?? 0, signal: interrupt.signal, onCredits: (credits) => live.credits(credits) });
  try {
    for await (const event of follower.events()) {
      if (options.timeline === 'json-lines') io.stdout.write(`${JSON.stringify(event)}\n`);
      live.event(event);
    }
  } finally {
    live.stop();
    interrupt.dispose();
  }
  return { outcome: follower.outcome, summary: live.summary() };
}

/** The summary line: the outcome coloured, the counts plain. */
function summaryLine(output: Output, summary: RunSummary): Styled {
  const style = output.messageStyle;
  const outcome = summary.outcome ?? 'still running';
  return styledLine`${summary.outcome === 'succeeded' ? style.green(outcome) : style.red(outcome)}${summaryText(summary).slice(outcome.length)}`;
}

/** How long the status may lag behind the trace's `run.finished` (the run writes it last). */
const STATUS_SETTLE_MS = 15_000;

/** The job's status once it says the run is over: the trace's end comes a moment before it. */
async function settledStatus(backend: Backend, id: string): Promise<AgentStatusDocument> {
  const until = Date.now() + STATUS_SETTLE_MS;
  let pause = 50;
  for (;;) {
    const status = await backend.agents.get(id);
    if (status.status !== 'processing' || Date.now() > until) return status;
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 1000);
  }
}

export async function runAgentRun(context: CommandContext, prompt: string, rawFlags: unknown): Promise<ExitCode> {
  const { io, output } = context;
  const flags = parseFlags(runFlags, rawFlags);
  const request = validateAgentRequest({
    prompt,
    ...(flags.url && { urls: flags.url }),
    ...(flags.schema && { schema: await readSchemaFile(flags.schema) }),
    ...(flags.maxCredits !== undefined && { maxCredits: flags.maxCredits }),
    ...(flags.effort && { effort: flags.effort }),
    origin: 'webwatch-cli',
  });
  if (!request.ok) throw new UsageError(`invalid agent request: ${request.problems.map((p) => `${formatPath(p.path) || 'prompt'}: ${p.message}`).join('; ')}`);
  const backend = await openBackend(context, 'starting an agent job');
  const local = backend.inProcess;
  try {
    if (flags.detach && local) {
      throw new UsageError('on the local engine an agent job runs inside this command, so it cannot be detached', {
        suggestion: 'run it against webwatch serve or a remote API (--api-url), or leave out --detach',
      });
    }
    const { id } = await backend.agents.start(request.value as AgentRequestInput);
    if (flags.detach) {
      if (output.json) output.jsonDocument({ success: true, id });
      else {
        output.data(id);
        output.info(`follow it with: webwatch agent trace ${id.slice(0, 8)} --follow`);
      }
      return EXIT.ok;
    }
    output.info(`agent job ${id}`);
    const timeline = output.quiet || output.json || !io.stderr.isTTY ? 'none' : 'stderr';
    const { outcome, summary } = await follow(context, backend, id, { timeline, ...(flags.maxCredits !== undefined && { maxCredits: flags.maxCredits }) });
    if (!outcome) {
      if (local) await backend.agents.cancel(id).catch(() => undefined);
      output.info(
        local
          ? `agent job ${id} cancelled: it ran in this command`
          : `stopped following; the job goes on. Cancel it with: webwatch agent cancel ${id.slice(0, 8)}`,
      );
      return EXIT.interrupted;
    }
    const status = await settledStatus(backend, id);
    if (outcome === 'succeeded' && (status.status !== 'completed' || status.data === undefined)) {
      // The trace says it succeeded, the status has no result: no exit 0 without one.
      throw new WebwatchError(
        `agent job ${id} finished succeeded, but its status ${status.status === 'completed' ? 'holds no result' : `still reads ${status.status}`}`,
        { code: 'AGENT_RESULT_MISSING', suggestion: `read it later with: webwatch agent status ${id.slice(0, 8)}` },
      );
    }
    if (flags.output && status.data !== undefined) await writeFile(flags.output, `${JSON.stringify(status.data, null, 2)}\n`);
    if (output.json) output.jsonDocument({ id, ...status });
    else if (status.status === 'completed') {
      if (!flags.output) output.data(typeof status.data === 'string' ? status.data : JSON.stringify(status.data, null, 2));
      output.info(summaryLine(output, { ...summary, credits: status.creditsUsed ?? summary.credits }));
      if (flags.output) output.info(`result written to ${flags.output}`);
    } else {
      output.info(summaryLine(output, summary));
      output.problem(styledLine`${output.messageStyle.red('error:')} ${status.error ?? outcome}`);
    }
    return outcomeExitCode(outcome);
  } finally {
    await backend.close();
  }
}

export async function runAgentStatus(context: CommandContext, ref: string): Promise<ExitCode> {
  const status = await withBackend(context, 'reading an agent job', async (backend) => backend.agents.get(await resolveAgentRef(backend, ref)));
  const { output } = context;
  if (output.json) output.jsonDocument(status);
  else {
    const rows = [
      ['status', status.status],
      ['credits', String(status.creditsUsed ?? 0)],
      ['expires', status.expiresAt],
      ...(status.model ? [['model', status.model]] : []),
      ...(status.error ? [['error', status.error]] : []),
    ];
    output.data(await renderRows(output, ['field', 'value'], rows));
    if (status.data !== undefined) output.data(JSON.stringify(status.data, null, 2));
  }
  return EXIT.ok;
}

export async function runAgentList(context: CommandContext): Promise<ExitCode> {
  const { agents } = await withBackend(context, 'listing agent jobs', (backend) => backend.agents.list());
  const { output } = context;
  if (output.json) output.jsonDocument(agents);
  else if (agents.length === 0) output.info('no agent jobs: start one with webwatch agent run "<prompt>"');
  else
    output.data(
      await renderRows(
        output,
        ['id', 'status', 'created', 'target'],
        agents.map((a) => [a.id, a.status, a.createdAt, a.targetHint]),
      ),
    );
  return EXIT.ok;
}

const snapshotFlags = z.object({ output: z.string().optional() });
const traceFlags = z.object({ follow: z.boolean().optional(), since: z.coerce.number().int().min(0).optional() });

export async function runAgentTrace(context: CommandContext, ref: string, rawFlags: unknown): Promise<ExitCode> {
  const { io, output } = context;
  const flags = parseFlags(traceFlags, rawFlags);
  // People get the timeline; pipes and --json one canonical event per line.
  const person = !output.json && output.tty;
  return withBackend(context, 'reading an agent trace', async (backend: Backend) => {
    const id = await resolveAgentRef(backend, ref);
    if (!flags.follow) {
      const { events } = await backend.agents.trace(id, flags.since ?? 0);
      if (!person) for (const event of events) io.stdout.write(`${JSON.stringify(event)}\n`);
      else {
        const view = new AgentRunView();
        for (const event of events) {
          const { durationMs } = view.see(event, Date.parse(event.occurredAt));
          output.data(timelineLine(event, output.style, event.type === 'tool_call.finished' ? durationMs : undefined));
        }
      }
      return EXIT.ok;
    }
    const { outcome, summary } = await follow(context, backend, id, { since: flags.since ?? 0, timeline: person ? 'stdout' : 'json-lines' });
    if (!outcome) {
      output.info(`stopped following; the job goes on. Cancel it with: webwatch agent cancel ${id.slice(0, 8)}`);
      return EXIT.interrupted;
    }
    if (person) output.info(summaryLine(output, summary));
    return outcomeExitCode(outcome);
  });
}

/** The snapshot ids a trace event names, wherever it carries them (an artifact change's `snapshotId`). */
function snapshotIdsOf(value: unknown, depth = 0): string[] {
  if (depth > 4 || value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === 'snapshotId' && typeof inner === 'string' ? [inner] : snapshotIdsOf(inner, depth + 1)));
}

export async function runAgentSnapshot(context: CommandContext, ref: string, snapshotId: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(snapshotFlags, rawFlags);
  let id = ref;
  const content = await withBackend(context, 'reading an agent snapshot', async (backend) => {
    id = await resolveAgentRef(backend, ref);
    // A snapshot goes by its id or a unique prefix, among those the job's trace names.
    const { events } = await backend.agents.trace(id);
    const snapshots = [...new Set(events.flatMap((event) => snapshotIdsOf(event)))].map((one) => ({ id: one }));
    snapshotId =
      snapshots.length > 0
        ? resolveIdPrefix(snapshotId, snapshots, { what: 'snapshot', field: 'snapshot', listHint: `webwatch agent trace ${id.slice(0, 8)} names them` }).id
        : snapshotId;
    return backend.agents.snapshot(id, snapshotId);
  });
  if (flags.output) {
    await writeFile(flags.output, content);
    context.output.info(`snapshot ${snapshotId} written to ${flags.output}`);
  } else if (context.output.json) context.output.jsonDocument({ id, snapshotId, snapshot: content });
  else context.output.data(content);
  return EXIT.ok;
}

export async function runAgentCancel(context: CommandContext, ref: string): Promise<ExitCode> {
  let id = ref;
  await withBackend(context, 'cancelling an agent job', async (backend) => backend.agents.cancel((id = await resolveAgentRef(backend, ref))));
  if (context.output.json) context.output.jsonDocument({ success: true, id });
  else context.output.info(`agent job ${id}: cancel requested`);
  return EXIT.ok;
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { 'agent run': runFlags, 'agent trace': traceFlags, 'agent snapshot': snapshotFlags };
