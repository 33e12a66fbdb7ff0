/**
 * One rule for every id typed on the command line (agent jobs, their snapshots, API keys; monitors
 * and checks go by monitor-ref.ts, which adds names): the whole id, or a unique prefix of at least
 * 4 characters, as git resolves commits. Several matches are refused with the candidates; none,
 * with the id one character off when there is one.
 */
import { distance } from 'fastest-levenshtein';
import { UsageError, WebwatchError } from '../errors/webwatch-error.js';

export const MIN_ID_PREFIX = 4;

export interface IdKind<T> {
  /** What the ids name, in the messages ("agent job", "snapshot", "key"). */
  what: string;
  /** The field of an error's details that names the reference (`agent`, `key`). */
  field: string;
  /** How a candidate is shown beside its short id (its target, its team); nothing by default. */
  describe?: (item: T) => string;
  /** Where the ids are listed ("webwatch keys list shows them"). */
  listHint: string;
  /** The not-found error's own message (the API's catalog); "<what> not found" by default. */
  notFound?: string;
}

/** The item whose id `ref` names among `items`, or an error that says why none is. */
export function resolveIdPrefix<T extends { id: string }>(ref: string, items: readonly T[], kind: IdKind<T>): T {
  const given = ref.trim().toLowerCase();
  const whole = items.find((item) => item.id.toLowerCase() === given);
  if (whole) return whole;
  if (given.length < MIN_ID_PREFIX) {
    throw new UsageError(`"${ref}" is too short to name a ${kind.what}: give at least ${MIN_ID_PREFIX} characters of its id`, { suggestion: kind.listHint });
  }
  const matches = items.filter((item) => item.id.toLowerCase().startsWith(given));
  if (matches.length === 1) return matches[0]!;
  const short = (item: T) => item.id.slice(0, Math.max(8, given.length));
  const shown = (item: T) => `${short(item)}${kind.describe ? ` (${kind.describe(item)})` : ''}`;
  if (matches.length > 1) {
    throw new WebwatchError(
      `"${ref}" matches ${matches.length} ${kind.what}s: ${matches.slice(0, 5).map(shown).join(', ')}${matches.length > 5 ? ', …' : ''}`,
      {
        status: 400,
        code: 'AMBIGUOUS_ID',
        details: { [kind.field]: ref, reason: 'ambiguous', candidates: matches.map((item) => item.id) },
        suggestion: 'give more of the id',
      },
    );
  }
  // One character off (a typo in the prefix): that one is offered.
  const near = items.filter((item) => distance(item.id.toLowerCase().slice(0, given.length), given) === 1);
  throw new WebwatchError(kind.notFound ?? `${kind.what} not found`, {
    status: 404,
    details: { [kind.field]: ref, reason: `no ${kind.what} has this id or id prefix` },
    suggestion: near.length === 1 ? `did you mean ${short(near[0]!)}? (${kind.listHint})` : kind.listHint,
  });
}
