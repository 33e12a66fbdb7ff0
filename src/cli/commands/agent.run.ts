/** `agent run|status|list|trace|snapshot|cancel`: flags -> backend -> a timeline, JSON lines or the result. */
import { interruptible } from '../interrupt.js';
import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import type { Backend } from '../../backend/backend.js';
import { followTrace, outcomeExitCode } from '../../core/agent/follow.js';
import type { RunOutcome, TraceEvent } from '../../engine/agent/trace.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { validateAgentRequest, type AgentRequestInput } from '../../spec/agent.js';
import { formatPath } from '../../spec/issues.js';
import { timelineLine } from '../../ui/agent-timeline.js';
import { renderRows } from '../../ui/table.js';
import { backendFor, withBackend } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';

const runFlags = z.object({
  url: z.array(z.string()).optional(),
  schema: z.string().optional(),
  maxCredits: z.coerce.number().int().min(1).optional(),
  effort: z.enum(['low', 'medium', 'high']).optional(),
  detach: z.boolean().optional(),
  output: z.string().optional(),
});

/** A JSON Schema from a .json or .yaml file. */
async function readSchema(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the schema ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let value: unknown;
  try {
    value = ['.yaml', '.yml'].includes(extname(file).toLowerCase()) ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the schema ${file} is not valid ${extname(file) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`the schema ${file} must be a JSON Schema object`);
  return value as Record<string, unknown>;
}

/** Prints events as they come: a timeline on stderr for a person, nothing else otherwise. */
function timelinePrinter(context: CommandContext): (event: TraceEvent) => void {
  const { io, output } = context;
  if (output.quiet || output.json || !io.stderr.isTTY) return () => {};
  return (event) => io.stderr.write(`${timelineLine(event, output.errorStyle)}\n`);
}

/** Ctrl-C while following: stop following and say how to cancel, unless the job runs here. */
const stopOnInterrupt = interruptible;

export async function runAgentRun(context: CommandContext, prompt: string, rawFlags: unknown): Promise<ExitCode> {
  const { io, output } = context;
  const flags = parseFlags(runFlags, rawFlags);
  const request = validateAgentRequest({
    prompt,
    ...(flags.url && { urls: flags.url }),
    ...(flags.schema && { schema: await readSchema(flags.schema) }),
    ...(flags.maxCredits !== undefined && { maxCredits: flags.maxCredits }),
    ...(flags.effort && { effort: flags.effort }),
    origin: 'webwatch-cli',
  });
  if (!request.ok) throw new UsageError(`invalid agent request: ${request.problems.map((p) => `${formatPath(p.path) || 'prompt'}: ${p.message}`).join('; ')}`);
  const backend = await backendFor(context, 'starting an agent job');
  const local = backend.description === 'the local engine';
  try {
    if (flags.detach && local) {
      throw new UsageError('on the local engine an agent job runs inside this command, so it cannot be detached', { suggestion: 'run it against webwatch serve or a remote API (--api-url), or leave out --detach' });
    }
    const { id } = await backend.startAgent(request.value as AgentRequestInput);
    if (flags.detach) {
      if (output.json) output.jsonDocument({ success: true, id });
      else {
        output.data(id);
        output.info(`follow it with: webwatch agent trace ${id} --follow`);
      }
      return EXIT.ok;
    }
    output.info(`agent job ${id}`);
    const print = timelinePrinter(context);
    const interrupt = stopOnInterrupt();
    let outcome: RunOutcome | undefined;
    try {
      for await (const event of followTrace(backend, id, { signal: interrupt.signal })) {
        print(event);
        if (event.type === 'run.finished') outcome = event.outcome;
      }
    } finally {
      interrupt.dispose();
    }
    if (!outcome) {
      if (local) await backend.cancelAgent(id).catch(() => undefined);
      output.info(local ? `agent job ${id} cancelled: it ran in this command` : `stopped following; the job goes on. Cancel it with: webwatch agent cancel ${id}`);
      return EXIT.interrupted;
    }
    const status = await backend.getAgent(id);
    if (flags.output && status.data !== undefined) await writeFile(flags.output, `${JSON.stringify(status.data, null, 2)}\n`);
    if (output.json) output.jsonDocument({ id, ...status });
    else if (status.status === 'completed') {
      if (!flags.output) output.data(typeof status.data === 'string' ? status.data : JSON.stringify(status.data, null, 2));
      output.info(`succeeded, ${status.creditsUsed ?? 0} credits${flags.output ? `; result written to ${flags.output}` : ''}`);
    } else output.problem(`${output.errorStyle.red('error:')} ${status.error ?? outcome}`);
    return outcomeExitCode(outcome);
  } finally {
    await backend.close();
  }
}

export async function runAgentStatus(context: CommandContext, id: string): Promise<ExitCode> {
  const status = await withBackend(context, 'reading an agent job', (backend) => backend.getAgent(id));
  const { output } = context;
  if (output.json) output.jsonDocument(status);
  else {
    const rows = [['status', status.status], ['credits', String(status.creditsUsed ?? 0)], ['expires', status.expiresAt], ...(status.model ? [['model', status.model]] : []), ...(status.error ? [['error', status.error]] : [])];
    output.data(await renderRows(output, ['field', 'value'], rows));
    if (status.data !== undefined) output.data(JSON.stringify(status.data, null, 2));
  }
  return EXIT.ok;
}

export async function runAgentList(context: CommandContext): Promise<ExitCode> {
  const { agents } = await withBackend(context, 'listing agent jobs', (backend) => backend.listAgents());
  const { output } = context;
  if (output.json) output.jsonDocument(agents);
  else if (agents.length === 0) output.info('no agent jobs: start one with webwatch agent run "<prompt>"');
  else output.data(await renderRows(output, ['id', 'status', 'created', 'target'], agents.map((a) => [a.id, a.status, a.createdAt, a.targetHint])));
  return EXIT.ok;
}

const traceFlags = z.object({ follow: z.boolean().optional(), since: z.coerce.number().int().min(0).optional() });

export async function runAgentTrace(context: CommandContext, id: string, rawFlags: unknown): Promise<ExitCode> {
  const { io, output } = context;
  const flags = parseFlags(traceFlags, rawFlags);
  // People get the timeline; pipes and --json one canonical event per line.
  const write = output.json || !output.tty ? (event: TraceEvent) => io.stdout.write(`${JSON.stringify(event)}\n`) : (event: TraceEvent) => output.data(timelineLine(event, output.style));
  return withBackend(context, 'reading an agent trace', async (backend: Backend) => {
    if (!flags.follow) {
      const { events } = await backend.agentTrace(id, flags.since ?? 0);
      events.forEach(write);
      return EXIT.ok;
    }
    const interrupt = stopOnInterrupt();
    let outcome: RunOutcome | undefined;
    try {
      for await (const event of followTrace(backend, id, { since: flags.since ?? 0, signal: interrupt.signal })) {
        write(event);
        if (event.type === 'run.finished') outcome = event.outcome;
      }
    } finally {
      interrupt.dispose();
    }
    if (!outcome) {
      output.info(`stopped following; the job goes on. Cancel it with: webwatch agent cancel ${id}`);
      return EXIT.interrupted;
    }
    return outcomeExitCode(outcome);
  });
}

export async function runAgentSnapshot(context: CommandContext, id: string, snapshotId: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(z.object({ output: z.string().optional() }), rawFlags);
  const content = await withBackend(context, 'reading an agent snapshot', (backend) => backend.agentSnapshot(id, snapshotId));
  if (flags.output) {
    await writeFile(flags.output, content);
    context.output.info(`snapshot ${snapshotId} written to ${flags.output}`);
  } else if (context.output.json) context.output.jsonDocument({ id, snapshotId, snapshot: content });
  else context.output.data(content);
  return EXIT.ok;
}

export async function runAgentCancel(context: CommandContext, id: string): Promise<ExitCode> {
  await withBackend(context, 'cancelling an agent job', (backend) => backend.cancelAgent(id));
  if (context.output.json) context.output.jsonDocument({ success: true, id });
  else context.output.info(`agent job ${id}: cancel requested`);
  return EXIT.ok;
}

