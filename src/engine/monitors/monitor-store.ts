/** Monitors in the engine's database, scoped to a team. */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { MonitorSummary, NormalizedMonitor } from '../../spec/monitor.js';
import { nextRunTimes } from '../../schedule/next-runs.js';
import { isUniqueViolation, type Db } from '../store/database.js';
import { prepared, perDatabase } from '../store/prepared.js';
import type { Tables } from '../store/tables.js';

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
  /**
   * False when it was saved under the rule that refuses private, loopback and link-local
   * addresses (serve, `mcp --http`): its checks and notifications keep that rule, whoever runs them.
   */
  privateTargetsAllowed: boolean;
}

/** The private-address rule of the process that saves a monitor. */
export interface SavedUnder {
  privateTargetsAllowed: boolean;
}

/** The command line's rule: its monitors are the machine's user's, and may reach private addresses. */
const COMMAND_LINE_RULE: SavedUnder = { privateTargetsAllowed: true };

export type MonitorRow = Selectable<Tables['monitors']>;

export const monitorFromRow = (row: MonitorRow): StoredMonitor => ({
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
  privateTargetsAllowed: row.private_targets_allowed !== 0,
});

/**
 * The monitors of remembered list reads (sqlite-reader.ts), parsed once per row as long as the
 * row is remembered, and frozen, since every answer of the list shares them.
 */
const listedMonitors = new WeakMap<MonitorRow, StoredMonitor>();
function listedMonitor(row: MonitorRow): StoredMonitor {
  let monitor = listedMonitors.get(row);
  if (!monitor) {
    monitor = deepFreeze(monitorFromRow(row));
    listedMonitors.set(row, monitor);
  }
  return monitor;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

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
  return new WebwatchError(ERROR_MESSAGES.conflict, {
    status: 409,
    details: { name, reason: 'a monitor with this name exists' },
    ...(cause !== undefined && { cause }),
  });
}

/**
 * Runs a write that may give a monitor a name the team already uses. A name looked up as free
 * can be taken by another process before the write; the unique index then refuses it, and
 * the caller gets the same 409 as for a name known to be taken.
 */
async function claimingName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw nameConflict(name, error);
    throw error;
  }
}

export interface MonitorStore {
  list(team: string, options?: { includeDeleted?: boolean }): Promise<StoredMonitor[]>;
  /** By id, or by name among the monitors that are not deleted. */
  find(team: string, idOrName: string): Promise<StoredMonitor | undefined>;
  /** A new monitor, keeping the rule it is saved under (the command line's unless told). */
  insert(team: string, definition: NormalizedMonitor, now: Date, rule?: SavedUnder): Promise<StoredMonitor>;
  /** A new definition; the monitor keeps the rule of this save from now on. */
  update(team: string, id: string, definition: NormalizedMonitor, now: Date, rule?: SavedUnder): Promise<StoredMonitor>;
  setStatus(team: string, id: string, status: MonitorStatus, now: Date): Promise<StoredMonitor>;
}

/** The list serve answers most often: compiled once. */
const queriesOf = perDatabase((db: Db) => ({
  listed: prepared<'team', MonitorRow>(db, (parameter) =>
    db.query.selectFrom('monitors').selectAll().where('team', '=', parameter('team')).where('status', '!=', 'deleted').orderBy('name').orderBy('created_at'),
  ),
}));

export function monitorStore(db: Db): MonitorStore {
  const q = db.query;
  const byId = (team: string, id: string) => q.selectFrom('monitors').selectAll().where('team', '=', team).where('id', '=', id).executeTakeFirst();
  const get = async (team: string, id: string) => {
    const row = await byId(team, id);
    if (!row) throw new Error(`monitor ${id} vanished from the store`);
    return monitorFromRow(row);
  };
  return {
    async list(team, options = {}) {
      if (options.includeDeleted) {
        return (await q.selectFrom('monitors').selectAll().where('team', '=', team).orderBy('name').orderBy('created_at').execute()).map(monitorFromRow);
      }
      return (await queriesOf(db).listed({ team })).map(listedMonitor);
    },
    async find(team, idOrName) {
      const row =
        (UUID.test(idOrName) ? await byId(team, idOrName.toLowerCase()) : undefined) ??
        (await q.selectFrom('monitors').selectAll().where('team', '=', team).where('name', '=', idOrName).where('status', '!=', 'deleted').executeTakeFirst());
      return row && monitorFromRow(row);
    },
    async insert(team, definition, now, rule = COMMAND_LINE_RULE) {
      const id = randomUUID();
      const stored = withTargetIds(definition);
      const at = now.toISOString();
      await claimingName(stored.name, () =>
        q
          .insertInto('monitors')
          .values({
            id,
            team,
            name: stored.name,
            status: 'active',
            definition: JSON.stringify(stored),
            created_at: at,
            updated_at: at,
            next_run_at: nextRunAt(stored, 'active', now),
            last_run_at: null,
            current_check_id: null,
            last_check_summary: null,
            private_targets_allowed: rule.privateTargetsAllowed ? 1 : 0,
          })
          .execute(),
      );
      return get(team, id);
    },
    async update(team, id, definition, now, rule = COMMAND_LINE_RULE) {
      const current = await get(team, id);
      const stored = withTargetIds(definition);
      await claimingName(stored.name, () =>
        q
          .updateTable('monitors')
          .set({
            name: stored.name,
            definition: JSON.stringify(stored),
            updated_at: now.toISOString(),
            next_run_at: nextRunAt(stored, current.status, now),
            private_targets_allowed: rule.privateTargetsAllowed ? 1 : 0,
          })
          .where('team', '=', team)
          .where('id', '=', id)
          .execute(),
      );
      return get(team, id);
    },
    async setStatus(team, id, status, now) {
      const current = await get(team, id);
      await q
        .updateTable('monitors')
        .set({ status, updated_at: now.toISOString(), next_run_at: nextRunAt(current.definition, status, now) })
        .where('team', '=', team)
        .where('id', '=', id)
        .execute();
      return get(team, id);
    },
  };
}
