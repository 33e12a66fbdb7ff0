/** `monitor apply`, `diff` and `create`: definitions from files, a plan, and its execution. */
import type { Backend } from '../../backend/backend.js';
import { UsageError } from '../../errors/webwatch-error.js';
import type { NormalizedMonitor } from '../../spec/monitor.js';
import { readDefinitionSources } from '../definitions/read.js';
import { validateSources, type ValidationReport } from '../validate.js';
import { planApply, planSummary, type PlanEntry } from './plan.js';

export class InvalidDefinitionsError extends UsageError {
  constructor(readonly report: ValidationReport) {
    super('the monitor definitions are invalid; nothing was changed', { details: report });
  }
}

/** Every definition of the files, normalised, or InvalidDefinitionsError with the full report. */
export async function loadDefinitions(
  paths: readonly string[],
  io: { readStdinBytes(maxBytes: number): Promise<Uint8Array>; env: Readonly<Record<string, string | undefined>> },
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
  return planApply(definitions, await backend.listMonitors(), prune);
}

/** Carries out a plan in order; created monitors get their ids in the returned plan. */
export async function executePlan(backend: Backend, plan: readonly PlanEntry[]): Promise<PlanEntry[]> {
  const done: PlanEntry[] = [];
  for (const entry of plan) {
    if (entry.action === 'create') {
      const created = await backend.createMonitor(entry.definition!);
      done.push({ ...entry, id: created.id });
    } else if (entry.action === 'update') {
      await backend.updateMonitor(entry.id!, { definition: entry.definition! });
      done.push(entry);
    } else if (entry.action === 'delete') {
      await backend.deleteMonitor(entry.id!);
      done.push(entry);
    } else {
      done.push(entry);
    }
  }
  return done;
}
