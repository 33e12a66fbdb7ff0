/**
 * Zero data retention: `zeroDataRetention: true` of a scrape, crawl or batch scrape request (the
 * hosted API's field beside the scrape options), and `lockdown`, which spec §2.7 counts as zero
 * data retention. Nothing of the request's pages is kept beyond the answer: no cache entry, no
 * change-tracking history, no document readable by its scrapeId, no screenshot or PDF file, no
 * saved browser profile; a crawl's or batch's pages leave the store once read. What would keep
 * something is refused up front (400), as §2.7 refuses onlyCleanContent (the hosted API refuses
 * screenshots under zero data retention too).
 */
import { z } from 'zod';
import { describeIssue, type Problem } from './issues.js';
import type { ScrapeOptions } from './scrape-options.js';
import type { Validation } from './schemas.js';

const field = z.boolean().optional();

/** The request's `zeroDataRetention`: a boolean, or absent. */
export function validateZeroDataRetention(value: unknown): Validation<boolean | undefined> {
  const result = field.safeParse(value, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue({ ...issue, path: ['zeroDataRetention', ...issue.path] })) };
}

/** Whether a request with these options keeps nothing of its pages: asked for, or lockdown. */
export function retainsNothing(zeroDataRetention: boolean | undefined, options: ScrapeOptions): boolean {
  return zeroDataRetention === true || options.lockdown === true;
}

/**
 * What the options ask for that zero data retention rules out, each at its path within the
 * options; none when the request keeps its data as usual. Under lockdown alone only §2.7's own
 * rule applies (onlyCleanContent): lockdown never fetches, so no screenshot, action or profile
 * of it can run, and the change-tracking history is not written (scrape.ts).
 */
export function zeroDataRetentionProblems(zeroDataRetention: boolean | undefined, options: ScrapeOptions): Problem[] {
  if (!retainsNothing(zeroDataRetention, options)) return [];
  const problems: Problem[] = [];
  // Spec §2.7: the cleaning pass is unsupported with zero data retention.
  if (options.onlyCleanContent) {
    problems.push({
      path: ['onlyCleanContent'],
      message: zeroDataRetention === true ? 'is not supported with zeroDataRetention' : 'is not supported with lockdown, which counts as zero data retention',
    });
  }
  if (zeroDataRetention !== true) return problems;
  (options.formats ?? []).forEach((format, index) => {
    const type = typeof format === 'string' ? format : format.type;
    if (type === 'screenshot')
      problems.push({ path: ['formats', index], message: 'screenshot is not supported with zeroDataRetention: a screenshot is kept as a file, served by URL' });
    if (type === 'changeTracking')
      problems.push({
        path: ['formats', index],
        message: 'changeTracking is not supported with zeroDataRetention: it keeps each page to compare the next scrape with',
      });
  });
  (options.actions ?? []).forEach((action, index) => {
    if (action.type === 'screenshot' || action.type === 'pdf')
      problems.push({
        path: ['actions', index],
        message: `a ${action.type} action is not supported with zeroDataRetention: its output is kept as a file, served by URL`,
      });
  });
  if (options.profile && options.profile.saveChanges !== false) {
    problems.push({
      path: ['profile'],
      message: "is not supported with zeroDataRetention unless saveChanges is false: it keeps the browser's storage for the next scrape",
    });
  }
  return problems;
}
