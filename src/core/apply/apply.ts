/** `monitor apply`, `diff` and `create`: definitions from files, a plan, and its execution. */
import type { Backend } from '../../services/interfaces.js';
import type { MonitorResource } from '../../contract/monitor.js';
import { EXIT } from '../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import type { NormalizedMonitor } from '../../spec/monitor.js';
import { readDefinitionSources } from '../definitions/read.js';
import { validateSources, type ValidationReport } from '../validate.js';
import { planApply, planMonitor, type planSummary, type PlanEntry } from './plan.js';
import type { Env } from '../../lib/env.js';

export class InvalidDefinitionsError extends UsageError {
  constructor(readonly report: ValidationReport) {
    super('the monitor definitions are invalid; nothing was changed', { details: report });
  }
}

/** Every definition of the files, normalised, or InvalidDefinitionsError with the full report. */
export async function loadDefinitions(
  paths: readonly string[],
  io: { readStdinBytes(maxBytes: number): Promise<Uint8Array>; env: Env },
): Promise<NormalizedMonitor[]> {
  const report = validateSources(await readDefinitionSources(paths, (maxBytes) => io.readStdinBytes(maxBytes)), { env: io.env });
  if (!report.valid) throw new InvalidDefinitionsError(report);
  return report.files.flatMap((file) => file.monitors.map((monitor) => monitor.definition!));
}

export interface ApplyResult {
  plan: PlanEntry[];
  applied: boolean;
  summary: ReturnType<typeof planSummary>;
}

export async function makePlan(backend: Backend, definitions: readonly NormalizedMonitor[], prune: boolean): Promise<PlanEntry[]> {
  return planApply(definitions, await backend.monitors.list(), prune);
}

export interface ExecuteOptions {
  /** Told of each entry as soon as it is applied, so a caller can show what is done as it goes. */
  onProgress?: (entry: PlanEntry) => void;
}

/** What a backend answers when the monitor is not as the plan found it: taken name, gone, deleted. */
const changedMeanwhile = (error: unknown): error is WebwatchError => error instanceof WebwatchError && (error.status === 409 || error.status === 404);

async function carryOut(backend: Backend, entry: PlanEntry): Promise<PlanEntry> {
  switch (entry.action) {
    case 'create':
      return { ...entry, id: (await backend.monitors.create(entry.definition!)).id };
    case 'update':
      await backend.monitors.update(entry.id!, { definition: entry.definition! });
      return entry;
    case 'delete':
      await backend.monitors.delete(entry.id!);
      return entry;
    default:
      return entry;
  }
}

async function monitorOrNothing(read: () => Promise<MonitorResource>): Promise<MonitorResource | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof WebwatchError && error.status === 404) return undefined;
    throw error;
  }
}

/** The entry planned again against the monitor as it is now, as a fresh apply would plan it. */
async function planAgain(backend: Backend, entry: PlanEntry): Promise<PlanEntry> {
  if (entry.action === 'delete') {
    const current = await monitorOrNothing(() => backend.monitors.get(entry.id!));
    return current && current.status !== 'deleted' ? entry : { ...entry, action: 'unchanged' };
  }
  const found = await monitorOrNothing(() => backend.monitors.get(entry.name));
  // A name shaped like an id may find another monitor by its id.
  const current = found && found.name === entry.name && found.status !== 'deleted' ? found : undefined;
  return planMonitor(entry.desired!, current);
}

/**
 * Carries out a plan in order; created monitors get their ids in the returned plan.
 *
 * Another apply may run at the same time (two CI jobs, say). When a monitor is no longer as the
 * plan found it (another process created it, or changed or deleted it), that one monitor is
 * planned again and applied as a fresh apply would: the end state is the files either way. Only
 * when it changes under this apply a second time does the apply stop, with a conflict (exit 5).
 */
export async function executePlan(backend: Backend, plan: readonly PlanEntry[], options: ExecuteOptions = {}): Promise<PlanEntry[]> {
  const done: PlanEntry[] = [];
  for (const entry of plan) {
    let applied: PlanEntry;
    try {
      applied = await carryOut(backend, entry);
    } catch (error) {
      if (!changedMeanwhile(error)) throw error;
      const meanwhile = entry.action === 'create' ? 'created' : 'changed';
      try {
        applied = { ...(await carryOut(backend, await planAgain(backend, entry))), meanwhile };
      } catch (again) {
        if (!changedMeanwhile(again)) throw again;
        throw new WebwatchError(`another process ${meanwhile === 'created' ? 'created' : 'changed or deleted'} monitor "${entry.name}" while this apply ran`, {
          exitCode: EXIT.conflict,
          code: 'APPLY_CONFLICT',
          suggestion: 'run the apply again: it plans from the monitors as they are then',
          details: { name: entry.name, ...(again.details !== undefined && { reason: again.details }) },
          cause: again,
        });
      }
    }
    done.push(applied);
    options.onProgress?.(applied);
  }
  return done;
}
