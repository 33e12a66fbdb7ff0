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
  io: { readStdin(): Promise<string>; env: Readonly<Record<string, string | undefined>> },
): Promise<NormalizedMonitor[]> {
  const report = validateSources(await readDefinitionSources(paths, () => io.readStdin()), { env: io.env });
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

export interface ExecuteOptions {
  /** Told of each entry as soon as it is applied, so a caller can show what is done as it goes. */
  onProgress?: (entry: PlanEntry) => void;
}

async function carryOut(backend: Backend, entry: PlanEntry): Promise<PlanEntry> {
  switch (entry.action) {
    case 'create':
      return { ...entry, id: (await backend.createMonitor(entry.definition!)).id };
    case 'update':
      await backend.updateMonitor(entry.id!, { definition: entry.definition! });
      return entry;
    case 'delete':
      await backend.deleteMonitor(entry.id!);
      return entry;
    default:
      return entry;
  }
}

/** Carries out a plan in order; created monitors get their ids in the returned plan. */
export async function executePlan(backend: Backend, plan: readonly PlanEntry[], options: ExecuteOptions = {}): Promise<PlanEntry[]> {
  const done: PlanEntry[] = [];
  for (const entry of plan) {
    const applied = await carryOut(backend, entry);
    done.push(applied);
    options.onProgress?.(applied);
  }
  return done;
}
