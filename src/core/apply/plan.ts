/**
 * The typed plan of `monitor apply`: each monitor of the files matched by name with the
 * existing ones, as create, update (with field changes), unchanged, or delete (with --prune).
 */
import { assumeMaskedValues } from '../../spec/header-masks.js';
import type { NormalizedMonitor } from '../../spec/monitor.js';
import type { MonitorResource } from '../../contract/monitor.js';
import { fieldChanges, type FieldChange } from './changes.js';

export type PlanAction = 'create' | 'update' | 'unchanged' | 'delete';

export interface PlanEntry {
  action: PlanAction;
  name: string;
  id: string | null;
  changes: FieldChange[];
  /** What create or update sends. */
  definition?: NormalizedMonitor;
  /** The monitor as the files define it, to plan it again if it changes before it is applied. */
  desired?: NormalizedMonitor;
  /**
   * Set once applied when another process had created (or changed or deleted) the monitor
   * between the plan and its execution: the entry then says what this apply did after all.
   */
  meanwhile?: 'created' | 'changed';
}

/** The parts of a resource a definition file controls, in the file's terms. */
export function definitionOf(resource: MonitorResource): NormalizedMonitor {
  return {
    name: resource.name,
    schedule: resource.schedule,
    goal: resource.goal,
    judgeEnabled: resource.judgeEnabled,
    targets: resource.targets,
    ...(resource.notification !== undefined && { notification: resource.notification as NormalizedMonitor['notification'] }),
    retentionDays: resource.retentionDays,
    ...(resource.webhook !== undefined && { webhook: resource.webhook as NormalizedMonitor['webhook'] }),
  };
}

/** A file's targets without ids keep the ids the service gave them, by position. */
function withExistingTargetIds(desired: NormalizedMonitor, existing: NormalizedMonitor): NormalizedMonitor {
  return {
    ...desired,
    targets: desired.targets.map((target, i) => {
      const current = existing.targets[i];
      return target.id === undefined && current?.id !== undefined && current.type === target.type ? { ...target, id: current.id } : target;
    }),
  };
}

/** One monitor of the files against the existing monitor of its name, if there is one. */
export function planMonitor(definition: NormalizedMonitor, current: MonitorResource | undefined): PlanEntry {
  const entry = { name: definition.name, desired: definition };
  if (!current) return { ...entry, action: 'create', id: null, changes: [], definition };
  // A server that masks header values (serve does) hides them: they are taken to be the files'.
  const before = assumeMaskedValues(definitionOf(current), definition);
  const after = withExistingTargetIds(definition, before);
  const changes = fieldChanges(before, after);
  return changes.length === 0
    ? { ...entry, action: 'unchanged', id: current.id, changes }
    : { ...entry, action: 'update', id: current.id, changes, definition: after };
}

export function planApply(desired: readonly NormalizedMonitor[], existing: readonly MonitorResource[], prune: boolean): PlanEntry[] {
  const byName = new Map(existing.filter((m) => m.status !== 'deleted').map((m) => [m.name, m]));
  const plan: PlanEntry[] = desired.map((definition) => planMonitor(definition, byName.get(definition.name)));
  if (prune) {
    const wanted = new Set(desired.map((d) => d.name));
    for (const monitor of existing) {
      if (monitor.status !== 'deleted' && !wanted.has(monitor.name)) plan.push({ action: 'delete', name: monitor.name, id: monitor.id, changes: [] });
    }
  }
  return plan;
}

export function planSummary(plan: readonly PlanEntry[]) {
  const count = (action: PlanAction) => plan.filter((entry) => entry.action === action).length;
  return { created: count('create'), updated: count('update'), unchanged: count('unchanged'), deleted: count('delete') };
}

export const hasChanges = (plan: readonly PlanEntry[]) => plan.some((entry) => entry.action !== 'unchanged');
