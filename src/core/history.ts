/**
 * A monitor's recent checks for `monitor history` and `monitor report`: the finished checks,
 * newest first, with their counts; the check a report shows by default; and, for a target that
 * extracts JSON, one field's value at each check (a price, a stock count, over time).
 */
import type { CheckService } from '../services/interfaces.js';
import type { CheckRecord } from '../contract/checks.js';
import { WebwatchError, UsageError } from '../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import { parsePath, valueAtPath } from '../engine/diff/json-diff.js';
import { compareText } from '../lib/compare-text.js';
import { inParallel } from '../lib/in-parallel.js';

export const DEFAULT_HISTORY_CHECKS = 30;
/** Checks `history --field` reads at once. */
const CHECKS_READ_AT_ONCE = 4;

/** Finished checks (a skipped slot is not one), newest first. */
const finished = (checks: readonly CheckRecord[]) =>
  checks
    .filter((check) => check.finishedAt && check.status !== 'skipped_overlap')
    .sort((a, b) => compareText(b.startedAt ?? b.createdAt, a.startedAt ?? a.createdAt));

export const changesOf = (check: CheckRecord) => check.summary.changed + check.summary.new + check.summary.removed;

export async function checkHistory(backend: { checks: Pick<CheckService, 'list'> }, idOrName: string, limit = DEFAULT_HISTORY_CHECKS): Promise<CheckRecord[]> {
  return finished(await backend.checks.list(idOrName)).slice(0, limit);
}

/**
 * The check a report shows when none is named: the newest that found changes, else the newest
 * that finished (`fallback` says so).
 */
export async function reportedCheck(backend: { checks: Pick<CheckService, 'list'> }, idOrName: string): Promise<{ id: string; fallback: boolean }> {
  const checks = finished(await backend.checks.list(idOrName));
  const changed = checks.find((check) => changesOf(check) > 0);
  if (changed) return { id: changed.id, fallback: false };
  if (checks[0]) return { id: checks[0].id, fallback: true };
  throw new WebwatchError(ERROR_MESSAGES.notFound, {
    status: 404,
    details: { monitor: idOrName, reason: 'the monitor has no finished check to report on' },
    suggestion: `run one with: webwatch monitor run "${idOrName}" --wait`,
  });
}

export interface FieldPoint {
  checkId: string;
  startedAt: string | null;
  url: string;
  /** The field's value in the JSON extracted at that check; null when the JSON has no such field. */
  value: unknown;
}

/**
 * One field of the extracted JSON at each of the recent checks, oldest first, for every page of
 * the monitor that extracts JSON. A check that saw the page the same still carries its JSON.
 */
export async function fieldHistory(
  backend: { checks: Pick<CheckService, 'list' | 'get'> },
  idOrName: string,
  path: string,
  limit = DEFAULT_HISTORY_CHECKS,
): Promise<FieldPoint[]> {
  // A path that cannot be read is the user's mistake: said before any check is read.
  let keys: (string | number)[];
  try {
    keys = parsePath(path);
  } catch (error) {
    throw new UsageError(`--field ${path}: ${(error as Error).message}`);
  }
  const checks = (await checkHistory(backend, idOrName, limit)).reverse();
  // A few checks read at a time (on a remote API each is a request of its own), each reduced to
  // its points as it comes, in the checks' order.
  const pointsOfChecks = await inParallel(checks, CHECKS_READ_AT_ONCE, async (check) => {
    const { pages } = await backend.checks.get(idOrName, check.id);
    return pages.flatMap((page): FieldPoint[] =>
      !page.snapshot || page.snapshot.json === null || page.snapshot.json === undefined
        ? []
        : [{ checkId: check.id, startedAt: check.startedAt, url: page.url, value: valueAtPath(page.snapshot.json, keys) ?? null }],
    );
  });
  const points = pointsOfChecks.flat();
  if (checks.length > 0 && points.length === 0) {
    throw new UsageError(`--field ${path}: no page of "${idOrName}" extracts JSON in its last ${checks.length} checks`, {
      suggestion: 'a target with the json format, or changeTracking in json mode, keeps the fields a check extracts',
    });
  }
  return points;
}
