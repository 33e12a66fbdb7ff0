/**
 * A web search's answer as every side sees it: its web and news results, numbered, each with
 * its scraped document when scrape options were given. Types only: the engine searches,
 * backends and commands read them here.
 */
import type { ScrapeDocument } from './scrape.js';

export interface WebResult {
  url: string;
  title?: string;
  description?: string;
  position: number;
}

export interface NewsResult {
  url: string;
  title?: string;
  snippet?: string;
  date?: string;
  position: number;
}

export type WithDocument<T> = T & Partial<ScrapeDocument>;

export interface SearchAnswer {
  web?: WithDocument<WebResult>[];
  news?: WithDocument<NewsResult>[];
  warning?: string;
}
