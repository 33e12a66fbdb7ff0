/** Monitors in the engine's database, scoped to a team. */
import { randomUUID } from 'node:crypto';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { MonitorSummary, NormalizedMonitor } from '../../spec/monitor.js';
import { nextRunTimes } from '../../schedule/next-runs.js';
import type { Db } from '../store/database.js';

export type MonitorStatus = 'active' | 'paused' | 'deleted';

export interface StoredMonitor {
  id: string;
  team: string;
  status: MonitorStatus;
  /** The normalised create request, every target with its id. */
  definition: NormalizedMonitor;
  createdAt: string;
  updatedAt: string;
  lastRunAt: string | null;
  nextRunAt: string | null;
  currentCheckId: string | null;
  lastCheckSummary: MonitorSummary | null;
}

interface Row {
  id: string;
  team: string;
  name: string;
  status: MonitorStatus;
  definition: string;
  created_at: string;
  updated_at: string;
  last_run_at: string | null;
  next_run_at: string | null;
  current_check_id: string | null;
  last_check_summary: string | null;
}

const fromRow = (row: Row): StoredMonitor => ({
  id: row.id,
  team: row.team,
  status: row.status,
  definition: JSON.parse(row.definition) as NormalizedMonitor,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastRunAt: row.last_run_at,
  nextRunAt: row.next_run_at,
  currentCheckId: row.current_check_id,
  lastCheckSummary: row.last_check_summary ? (JSON.parse(row.last_check_summary) as MonitorSummary) : null,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Target ids are generated when omitted (spec 2.3). */
export function withTargetIds(definition: NormalizedMonitor): NormalizedMonitor {
  return { ...definition, targets: definition.targets.map((target) => ({ ...target, id: target.id ?? randomUUID() })) };
}

export function nextRunAt(definition: NormalizedMonitor, status: MonitorStatus, now: Date): string | null {
  if (status !== 'active') return null;
  return nextRunTimes(definition.schedule.cron, definition.schedule.timezone, 1, now)[0]?.toISOString() ?? null;
}

/** 409 Conflict: the team has a monitor (not deleted) of this name. */
export function nameConflict(name: string, cause?: unknown): WebwatchError {
  return new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { name, reason: 'a monitor with this name exists' }, ...(cause !== undefined && { cause }) });
}

/**
 * Runs a write that may give a monitor a name the team already uses. A name looked up as free
 * can be taken by another process before the write; the unique index then refuses it, and
 * the caller gets the same 409 as for a name known to be taken.
 */
function claimingName<T>(name: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw nameConflict(name, error);
    throw error;
  }
}

export interface MonitorStore {
  list(team: string, options?: { includeDeleted?: boolean }): StoredMonitor[];
  /** By id, or by name among the monitors that are not deleted. */
  find(team: string, idOrName: string): StoredMonitor | undefined;
  insert(team: string, definition: NormalizedMonitor, now: Date): StoredMonitor;
  update(team: string, id: string, definition: NormalizedMonitor, now: Date): StoredMonitor;
  setStatus(team: string, id: string, status: MonitorStatus, now: Date): StoredMonitor;
}

export function monitorStore(db: Db): MonitorStore {
  const byId = db.prepare<[string, string], Row>('SELECT * FROM monitors WHERE team = ? AND id = ?');
  const byName = db.prepare<[string, string], Row>("SELECT * FROM monitors WHERE team = ? AND name = ? AND status != 'deleted'");
  const get = (team: string, id: string) => {
    const row = byId.get(team, id);
    if (!row) throw new Error(`monitor ${id} vanished from the store`);
    return fromRow(row);
  };
  return {
    list(team, options = {}) {
      const rows = db
        .prepare<[string], Row>(`SELECT * FROM monitors WHERE team = ? ${options.includeDeleted ? '' : "AND status != 'deleted'"} ORDER BY name, created_at`)
        .all(team);
      return rows.map(fromRow);
    },
    find(team, idOrName) {
      const row = (UUID.test(idOrName) ? byId.get(team, idOrName.toLowerCase()) : undefined) ?? byName.get(team, idOrName);
      return row && fromRow(row);
    },
    insert(team, definition, now) {
      const id = randomUUID();
      const stored = withTargetIds(definition);
      const at = now.toISOString();
      claimingName(stored.name, () =>
        db.prepare('INSERT INTO monitors (id, team, name, status, definition, created_at, updated_at, next_run_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(id, team, stored.name, 'active', JSON.stringify(stored), at, at, nextRunAt(stored, 'active', now)));
      return get(team, id);
    },
    update(team, id, definition, now) {
      const current = get(team, id);
      const stored = withTargetIds(definition);
      claimingName(stored.name, () =>
        db.prepare('UPDATE monitors SET name = ?, definition = ?, updated_at = ?, next_run_at = ? WHERE team = ? AND id = ?')
          .run(stored.name, JSON.stringify(stored), now.toISOString(), nextRunAt(stored, current.status, now), team, id));
      return get(team, id);
    },
    setStatus(team, id, status, now) {
      const current = get(team, id);
      db.prepare('UPDATE monitors SET status = ?, updated_at = ?, next_run_at = ? WHERE team = ? AND id = ?')
        .run(status, now.toISOString(), nextRunAt(current.definition, status, now), team, id);
      return get(team, id);
    },
  };
}
