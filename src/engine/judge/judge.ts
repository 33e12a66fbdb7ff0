/**
 * Judging a new or changed page against the monitor's goal: does the change matter for it?
 * A model (any OpenAI-compatible chat-completions server) judges when one is configured;
 * otherwise, or when the model fails, a deterministic lexical judge does, and says so.
 */
import { z } from 'zod';

export type { Judgment, MeaningfulChange } from '../../contract/checks.js';
import type { Judgment, MeaningfulChange } from '../../contract/checks.js';

/** What is judged: the goal, and the page's new content (a new page) or its diff (a changed one). */
export interface JudgeInput {
  goal: string;
  url: string;
  status: 'new' | 'changed';
  /** The markdown of a new page, or the unified diff of a changed one. */
  content: string;
}

export type Judge = (input: JudgeInput) => Promise<Judgment>;

export const judgmentSchema = z.object({
  meaningful: z.boolean(),
  confidence: z.enum(['high', 'medium', 'low']),
  reason: z.string().max(2000),
  meaningfulChanges: z
    .array(
      z.object({
        type: z.enum(['added', 'removed', 'changed']),
        before: z.string().nullable(),
        after: z.string().nullable(),
        reason: z.string(),
      }),
    )
    .max(50),
});

const STOPWORDS = new Set(
  'a an and any are as at be been but by can do does for from has have how i if in into is it its me my no not of on or our so some such than that the their them then there these they this to up us was we what when where which who will with would you your about tell notify alert changes change page pages new when whenever'.split(
    ' ',
  ),
);

/** The words of a goal worth looking for: lowercased, 3 letters or more, stopwords dropped. */
export function goalTerms(goal: string): string[] {
  const words =
    goal
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}][\p{L}\p{N}$€£%.-]*[\p{L}\p{N}$€£%]|[\p{L}\p{N}]/gu) ?? [];
  return [...new Set(words.filter((word) => word.length >= 3 && !STOPWORDS.has(word)))];
}

/** The lines a diff adds and removes; a new page's content counts as added. */
function changedLines(input: JudgeInput): { added: string[]; removed: string[] } {
  if (input.status === 'new') return { added: input.content.split('\n').filter((line) => line.trim() !== ''), removed: [] };
  const lines = input.content.split('\n');
  return {
    added: lines
      .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
      .map((line) => line.slice(1))
      .filter((line) => line.trim() !== ''),
    removed: lines
      .filter((line) => line.startsWith('-') && !line.startsWith('---'))
      .map((line) => line.slice(1))
      .filter((line) => line.trim() !== ''),
  };
}

/** Goal words that make it about money or quantities: a changed amount then matters by itself. */
const AMOUNT_GOAL =
  /^(?:pric|cost|plan|fee|credit|charg|bill|subscri|tier|rate|amount|pay|salar|budget|discount|quot|usd|eur|gbp|dollar|euro|pound|spend|invoice|tariff|quota|limit)/;

/** Is the goal about prices, costs, plans, fees, credits and the like (or does it name a currency)? */
export function isAmountGoal(goal: string): boolean {
  return /[$€£¥]/.test(goal) || goalTerms(goal).some((term) => AMOUNT_GOAL.test(term));
}

/** Amounts in a line: a number, with its currency sign or code and its period when it has them. */
const AMOUNT =
  /(?:[$€£¥]\s?)?\d(?:[\d,.\u00a0\u202f']*\d)?(?:\s?(?:[kKmM]\b|%|[$€£¥]|USD|EUR|GBP|credits?))?(?:\s?\/\s?(?:mo(?:nth)?|yr|year|user|seat|day|hour|h))?/g;
/** Dates, times, relative times and bare years are not amounts: a page's "updated" line changes daily. */
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const DATES = new RegExp(
  [
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}(?:[T ]\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?',
    '\\b\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}\\b',
    '\\b\\d{1,2}:\\d{2}(?::\\d{2})?\\s?(?:[ap]\\.?m\\.?)?',
    `\\b${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b`,
    `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}(?:\\s+\\d{4})?\\b`,
    '\\b\\d+\\s*(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?)\\s+ago\\b',
  ].join('|'),
  'gi',
);
const withoutDates = (line: string) => line.replace(DATES, ' · ');
const isBareYear = (amount: string) => /^(?:19|20)\d\d$/.test(amount);
const amountsOf = (line: string) => (withoutDates(line).match(AMOUNT) ?? []).map((amount) => amount.trim()).filter((amount) => !isBareYear(amount));
/** A line with its amounts masked: two lines alike but for their amounts show an amount that changed. */
const withoutNumbers = (line: string) =>
  withoutDates(line)
    .replace(AMOUNT, (amount) => (isBareYear(amount.trim()) ? amount : '#'))
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
const hasCurrency = (amount: string) => /[$€£¥]|USD|EUR|GBP|credit|\//.test(amount);

/**
 * For a goal about amounts: a removed line and an added line that differ only in their numbers
 * is an amount that changed (`$50/month` → `$65/month`); a new page or an added line that shows
 * prices is an amount that appeared.
 */
function amountChanges(added: readonly string[], removed: readonly string[]): MeaningfulChange[] {
  const changes: MeaningfulChange[] = [];
  const removedByShape = new Map<string, string>();
  for (const line of removed) if (amountsOf(line).length > 0) removedByShape.set(withoutNumbers(line), line);
  for (const line of added) {
    const after = amountsOf(line);
    if (after.length === 0) continue;
    const previous = removedByShape.get(withoutNumbers(line));
    if (previous !== undefined) {
      const before = amountsOf(previous);
      const pairs = after.map((amount, i) => [before[i], amount] as const).filter(([was, now]) => was !== now);
      if (pairs.length === 0) continue;
      removedByShape.delete(withoutNumbers(line));
      changes.push({
        type: 'changed',
        before: previous.trim(),
        after: line.trim(),
        reason: `an amount changed: ${pairs.map(([was, now]) => `${was} → ${now}`).join(', ')}`,
      });
    } else if (after.some(hasCurrency)) {
      changes.push({ type: 'added', before: null, after: line.trim(), reason: `shows an amount: ${after.filter(hasCurrency).join(', ')}` });
    }
  }
  return changes;
}

/**
 * The deterministic judge: a change is meaningful when the lines it adds or removes mention the
 * goal's terms (two or more distinct terms make it confident; one, less so), or, for a goal about
 * prices, costs, plans, fees or credits, when an amount changed or appeared.
 */
export const lexicalJudge: Judge = async (input) => {
  const terms = goalTerms(input.goal);
  const { added, removed } = changedLines(input);
  const mentions = (line: string) => terms.filter((term) => line.toLowerCase().includes(term));
  const changes: MeaningfulChange[] = [];
  const found = new Set<string>();
  const amounts = isAmountGoal(input.goal) ? amountChanges(added, removed) : [];
  // A line that an amount change already tells is not told again as added or removed.
  const told = new Set(amounts.flatMap((change) => [change.before, change.after]).filter((line): line is string => line !== null));
  // Bounded: pairing looks at each removed line against the added ones.
  const mentioned = (lines: readonly string[]) =>
    lines
      .slice(0, 200)
      .map((line) => ({ line: line.trim(), hits: mentions(line) }))
      .filter(({ hits }) => hits.length > 0);
  const removedMentions = mentioned(removed);
  const addedMentions = mentioned(added);
  for (const { hits } of [...removedMentions, ...addedMentions]) hits.forEach((hit) => found.add(hit));
  const hitsText = (hits: readonly string[]) => hits.map((hit) => `"${hit}"`).join(', ');
  // A removed line and an added line that are one line edited are one change.
  const pairedAdded = new Set<number>();
  for (const { line, hits } of removedMentions) {
    if (told.has(line)) continue;
    const partner = addedMentions.findIndex((candidate, i) => !pairedAdded.has(i) && !told.has(candidate.line) && sameLineEdited(line, candidate.line));
    if (partner !== -1) {
      pairedAdded.add(partner);
      const after = addedMentions[partner]!;
      changes.push({ type: 'changed', before: line, after: after.line, reason: `mentions ${hitsText([...new Set([...hits, ...after.hits])])}` });
    } else {
      changes.push({ type: 'removed', before: line, after: null, reason: `mentions ${hitsText(hits)}` });
    }
  }
  addedMentions.forEach(({ line, hits }, i) => {
    if (!told.has(line) && !pairedAdded.has(i)) changes.push({ type: 'added', before: null, after: line, reason: `mentions ${hitsText(hits)}` });
  });
  const prefix = 'lexical judge (no model configured or the model failed): ';
  if (found.size === 0 && amounts.length === 0) {
    return {
      meaningful: false,
      confidence: terms.length === 0 ? 'low' : 'medium',
      reason: `${prefix}${terms.length === 0 ? 'the goal has no terms to look for' : `none of the goal's terms (${terms.slice(0, 8).join(', ')}) appear in what changed`}`,
      meaningfulChanges: [],
    };
  }
  // An amount that changed is the news for a goal about amounts: it leads, and it is confident.
  const changed = amounts.filter((change) => change.type === 'changed');
  const lead = changed.length > 0 ? changed : amounts;
  const reasons = [
    ...(lead.length > 0
      ? [
          `${lead
            .slice(0, 3)
            .map((change) => change.reason)
            .join('; ')}${lead.length > 3 ? ` (and ${lead.length - 3} more)` : ''}`,
        ]
      : []),
    ...(found.size > 0 ? [`what changed mentions ${[...found].map((term) => `"${term}"`).join(', ')}`] : []),
  ];
  return {
    meaningful: true,
    confidence: changed.length > 0 || found.size >= 2 ? 'high' : 'medium',
    reason: `${prefix}${reasons.join('; ')}`,
    meaningfulChanges: tellEachChangeOnce([...amounts, ...changes]).slice(0, 20),
  };
};

const wordsOf = (line: string) => new Set(line.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Two lines that are one line edited: most of their words in common. */
function sameLineEdited(before: string, after: string): boolean {
  const a = wordsOf(before);
  const b = wordsOf(after);
  if (a.size === 0 || b.size === 0) return false;
  let common = 0;
  for (const word of a) if (b.has(word)) common++;
  return common / Math.max(a.size, b.size) >= 0.5;
}

const sameText = (a: string | null, b: string | null) => a !== null && b !== null && a.trim() === b.trim();

/**
 * Each change told once: a line given as `changed` is not listed again as `added` (its after)
 * or `removed` (its before), and an entry repeated is dropped. A model's answer goes through
 * this too.
 */
export function tellEachChangeOnce(changes: readonly MeaningfulChange[]): MeaningfulChange[] {
  const edited = changes.filter((change) => change.type === 'changed');
  const seen = new Set<string>();
  return changes.filter((change) => {
    const key = `${change.type}\u0000${change.before?.trim() ?? ''}\u0000${change.after?.trim() ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    if (change.type === 'added') return !edited.some((other) => sameText(other.after, change.after));
    if (change.type === 'removed') return !edited.some((other) => sameText(other.before, change.before));
    return true;
  });
}
