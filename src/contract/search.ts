/**
 * A web search's answer as every side sees it: its web, news and image results, numbered, the
 * web and news ones each with its scraped document when scrape options were given. Types only: the engine searches,
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

/** An image found by a search (the hosted SDK's SearchResultImages): `url` is the page that shows it. */
export interface ImageResult {
  title?: string;
  imageUrl: string;
  imageWidth?: number;
  imageHeight?: number;
  url: string;
  position: number;
}

export type WithDocument<T> = T & Partial<ScrapeDocument>;

export interface SearchAnswer {
  web?: WithDocument<WebResult>[];
  news?: WithDocument<NewsResult>[];
  images?: ImageResult[];
  warning?: string;
  /** What the search cost: its results, and the pages scraped for them. */
  creditsUsed?: number;
}
