/**
 * A crawl as every side sees it: each page it reached (its document, or why there is none)
 * and the summary at its end. Types only: the engine crawls, backends and commands read them here.
 */
import type { ScrapeDocument } from './scrape.js';

export type CrawlPage = { url: string; depth: number; document: ScrapeDocument } | { url: string; depth: number; error: unknown };

export interface CrawlSummary {
  pages: number;
  errors: number;
  skippedByRobots: number;
  /** The URLs robots.txt kept the crawl from, the first ROBOTS_BLOCKED_LISTED (engine/crawl) of them. */
  robotsBlocked: string[];
}
