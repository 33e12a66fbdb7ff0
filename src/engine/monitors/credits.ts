/**
 * estimatedCreditsPerMonth (spec 2.6): runs in the next 30 days x pages per run x credits per
 * page, a monthly maximum. Pages: a scrape target's URLs, a crawl target's limit (default 100),
 * a search target's maxResults. Credits per page: what a scrape of it reports (spec/credits.ts:
 * pageCredits); lockdown targets cost 5 per page (a hit).
 * Judging is not counted: it is charged only for changed pages that are judged.
 */
import { CREDITS, SEARCH_MAX_RESULTS_DEFAULT } from '../../spec/limits.js';
import type { NormalizedMonitor, Target } from '../../spec/monitor.js';
import { pageCredits } from '../../spec/credits.js';
import { runsPerMonth } from '../../schedule/runs-per-month.js';
import { CRAWL_DEFAULTS } from '../crawl/defaults.js';

function pagesOf(target: Target): number {
  if (target.type === 'scrape') return target.urls.length;
  if (target.type === 'crawl') return target.crawlOptions?.limit ?? CRAWL_DEFAULTS.limit;
  return target.maxResults ?? SEARCH_MAX_RESULTS_DEFAULT;
}

function creditsPerPage(target: Target): number {
  if (target.type === 'search') return 1;
  const options = target.scrapeOptions ?? {};
  if (options.lockdown) return CREDITS.lockdownHit;
  return pageCredits(options);
}

export function estimatedCreditsPerMonth(definition: NormalizedMonitor, from: Date): number {
  const runs = runsPerMonth(definition.schedule.cron, definition.schedule.timezone, from);
  const perRun = definition.targets.reduce((sum, target) => sum + pagesOf(target) * creditsPerPage(target), 0);
  return runs * perRun;
}
