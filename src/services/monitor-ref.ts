/**
 * A monitor named on the command line: by id, by a unique id prefix (as git and docker take
 * them), or by name, exactly or, when only one matches, ignoring case. What matches nothing is
 * a Not Found that suggests the closest name; an ambiguous prefix lists its candidates.
 */
import { WebwatchError } from '../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import { closestMatch } from '../spec/suggest.js';
import { compareText } from '../lib/compare-text.js';

interface Named {
  id: string;
  name: string;
  status: string;
}

/** Shortest prefix taken: shorter ones match too much to be meant. */
const MIN_PREFIX = 4;

export function resolveMonitorRef<T extends Named>(ref: string, monitors: readonly T[]): T {
  const live = monitors.filter((monitor) => monitor.status !== 'deleted');
  const exact = monitors.find((monitor) => monitor.id === ref.toLowerCase()) ?? live.find((monitor) => monitor.name === ref);
  if (exact) return exact;
  const byName = live.filter((monitor) => monitor.name.toLowerCase() === ref.toLowerCase());
  if (byName.length === 1) return byName[0]!;
  const byPrefix = /^[0-9a-f-]+$/i.test(ref) && ref.length >= MIN_PREFIX ? monitors.filter((monitor) => monitor.id.startsWith(ref.toLowerCase())) : [];
  if (byPrefix.length === 1) return byPrefix[0]!;
  const candidates = byName.length > 1 ? byName : byPrefix;
  if (candidates.length > 1) {
    throw new WebwatchError(
      `"${ref}" matches ${candidates.length} monitors: ${candidates
        .slice(0, 5)
        .map((m) => `${m.id.slice(0, 8)} (${m.name})`)
        .join(', ')}${candidates.length > 5 ? ', …' : ''}`,
      {
        status: 400,
        details: { monitor: ref, reason: 'ambiguous', candidates: candidates.map((m) => ({ id: m.id, name: m.name })) },
        suggestion: 'give more of the id, or the whole name',
      },
    );
  }
  const closest = closestMatch(
    ref,
    live.map((monitor) => monitor.name),
  );
  throw new WebwatchError(ERROR_MESSAGES.notFound, {
    status: 404,
    details: { monitor: ref, reason: 'no monitor has this id, id prefix or name' },
    suggestion:
      closest !== undefined
        ? `did you mean "${closest}"?`
        : live.length === 0
          ? 'there are no monitors yet: create some with webwatch monitor apply -f <file>'
          : 'webwatch monitor list shows them',
  });
}

/** The newest of a monitor's checks, by start (by creation for one not started yet). */
export function newestCheck<T extends { startedAt: string | null; createdAt?: string }>(checks: readonly T[]): T | undefined {
  const when = (check: T) => check.startedAt ?? check.createdAt ?? '';
  let newest: T | undefined;
  for (const check of checks) if (!newest || compareText(when(check), when(newest)) > 0) newest = check;
  return newest;
}

/** A check named on the command line: its id, a unique id prefix, or `latest` (the newest). */
export function resolveCheckRef<T extends { id: string; startedAt: string | null; createdAt?: string }>(
  ref: string,
  checks: readonly T[],
  monitorName: string,
): T {
  if (ref === 'latest') {
    const newest = newestCheck(checks);
    if (newest) return newest;
    throw new WebwatchError(ERROR_MESSAGES.notFound, {
      status: 404,
      details: { check: ref, reason: `monitor "${monitorName}" has no checks yet` },
      suggestion: `run one with: webwatch monitor run "${monitorName}"`,
    });
  }
  const exact = checks.find((check) => check.id === ref.toLowerCase());
  if (exact) return exact;
  const byPrefix = ref.length >= MIN_PREFIX ? checks.filter((check) => check.id.startsWith(ref.toLowerCase())) : [];
  if (byPrefix.length === 1) return byPrefix[0]!;
  if (byPrefix.length > 1) {
    throw new WebwatchError(
      `"${ref}" matches ${byPrefix.length} checks: ${byPrefix
        .slice(0, 5)
        .map((c) => c.id.slice(0, 8))
        .join(', ')}`,
      { status: 400, details: { check: ref, reason: 'ambiguous' }, suggestion: 'give more of the id' },
    );
  }
  throw new WebwatchError(ERROR_MESSAGES.notFound, {
    status: 404,
    details: { check: ref, reason: `monitor "${monitorName}" has no check with this id or id prefix` },
    suggestion: `webwatch monitor checks "${monitorName}" lists them; "latest" is the newest`,
  });
}
