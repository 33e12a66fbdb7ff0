/**
 * Judging a new or changed page against the monitor's goal: does the change matter for it?
 * A model (any OpenAI-compatible chat-completions server) judges when one is configured;
 * otherwise, or when the model fails, a deterministic lexical judge does, and says so.
 */
import { z } from 'zod';

export interface MeaningfulChange {
  type: 'added' | 'removed' | 'changed';
  before: string | null;
  after: string | null;
  reason: string;
}

export interface Judgment {
  meaningful: boolean;
  confidence: 'high' | 'medium' | 'low';
  reason: string;
  meaningfulChanges: MeaningfulChange[];
}

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
  meaningfulChanges: z.array(z.object({
    type: z.enum(['added', 'removed', 'changed']),
    before: z.string().nullable(),
    after: z.string().nullable(),
    reason: z.string(),
  })).max(50),
});

const STOPWORDS = new Set('a an and any are as at be been but by can do does for from has have how i if in into is it its me my no not of on or our so some such than that the their them then there these they this to up us was we what when where which who will with would you your about tell notify alert changes change page pages new when whenever'.split(' '));

/** The words of a goal worth looking for: lowercased, 3 letters or more, stopwords dropped. */
export function goalTerms(goal: string): string[] {
  const words = goal.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}][\p{L}\p{N}$€£%.-]*[\p{L}\p{N}$€£%]|[\p{L}\p{N}]/gu) ?? [];
  return [...new Set(words.filter((word) => word.length >= 3 && !STOPWORDS.has(word)))];
}

/** The lines a diff adds and removes; a new page's content counts as added. */
function changedLines(input: JudgeInput): { added: string[]; removed: string[] } {
  if (input.status === 'new') return { added: input.content.split('\n').filter((line) => line.trim() !== ''), removed: [] };
  const lines = input.content.split('\n');
  return {
    added: lines.filter((line) => line.startsWith('+') && !line.startsWith('+++')).map((line) => line.slice(1)).filter((line) => line.trim() !== ''),
    removed: lines.filter((line) => line.startsWith('-') && !line.startsWith('---')).map((line) => line.slice(1)).filter((line) => line.trim() !== ''),
  };
}

/**
 * The deterministic judge: a change is meaningful when the lines it adds or removes mention the
 * goal's terms. Two or more distinct terms make it confident; one, less so.
 */
export const lexicalJudge: Judge = async (input) => {
  const terms = goalTerms(input.goal);
  const { added, removed } = changedLines(input);
  const mentions = (line: string) => terms.filter((term) => line.toLowerCase().includes(term));
  const changes: MeaningfulChange[] = [];
  const found = new Set<string>();
  for (const [type, lines] of [['added', added], ['removed', removed]] as const) {
    for (const line of lines) {
      const hits = mentions(line);
      if (hits.length === 0) continue;
      hits.forEach((hit) => found.add(hit));
      if (changes.length < 20) changes.push({ type, before: type === 'removed' ? line.trim() : null, after: type === 'added' ? line.trim() : null, reason: `mentions ${hits.map((hit) => `"${hit}"`).join(', ')}` });
    }
  }
  const prefix = 'lexical judge (no model configured or the model failed): ';
  if (found.size === 0) {
    return { meaningful: false, confidence: terms.length === 0 ? 'low' : 'medium', reason: `${prefix}${terms.length === 0 ? 'the goal has no terms to look for' : `none of the goal's terms (${terms.slice(0, 8).join(', ')}) appear in what changed`}`, meaningfulChanges: [] };
  }
  return { meaningful: true, confidence: found.size >= 2 ? 'high' : 'medium', reason: `${prefix}what changed mentions ${[...found].map((term) => `"${term}"`).join(', ')}`, meaningfulChanges: changes };
};
