/**
 * Extract jobs and the crawl params preview as every side sees them, in the shapes the hosted
 * SDK types (`ExtractResponse`; `crawlParamsPreview`'s answer). Types only.
 */

/** Field paths of the result (`plans[0].price`, or `plans` for the whole list) -> the URLs of the pages they came from. */
export type ExtractSources = Record<string, string[]>;

/** POST /v2/extract: the job's id, and what the caller should know at once. */
export interface ExtractStarted {
  success: true;
  id: string;
  warning?: string;
}

/** GET /v2/extract/{id}. */
export interface ExtractStatusDocument {
  success: boolean;
  id: string;
  status: 'processing' | 'completed' | 'failed';
  error?: string;
  /** The result, shaped by the request's schema; only once completed. */
  data?: unknown;
  /** Only with showSources, once completed. */
  sources?: ExtractSources;
  /** Pages that could not be read, a web search that could not be made...: joined in one line. */
  warning?: string;
  expiresAt: string;
  creditsUsed: number;
}

/** What an extract job keeps once it has succeeded. */
export interface ExtractResult {
  data: unknown;
  sources?: ExtractSources;
  warnings?: string[];
}

/** POST /v2/crawl/params-preview. */
export interface CrawlPreviewDocument {
  success: true;
  data: Record<string, unknown> & { url: string };
  warning?: string;
}
