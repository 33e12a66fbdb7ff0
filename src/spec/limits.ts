/**
 * Every limit of the v2 interface (spec §8, and the per-field rules of §2), named once.
 * Schemas, messages and tests refer to these constants, never to bare numbers.
 */

export const MONITOR_NAME_MAX_LENGTH = 256;
export const TARGETS_MIN = 1;
export const TARGETS_MAX = 50;
export const GOAL_MAX_LENGTH = 2000;

export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 365;
export const RETENTION_DAYS_DEFAULT = 30;

export const CRON_MIN_INTERVAL_MINUTES = 5;
export const DEFAULT_TIMEZONE = 'UTC';

export const EMAIL_RECIPIENTS_MAX = 25;

export const SEARCH_QUERIES_MIN = 1;
export const SEARCH_QUERIES_MAX = 12;
export const SEARCH_QUERY_MIN_LENGTH = 1;
export const SEARCH_QUERY_MAX_LENGTH = 256;
export const SEARCH_MAX_RESULTS_MIN = 1;
export const SEARCH_MAX_RESULTS_MAX = 50;
export const SEARCH_MAX_RESULTS_DEFAULT = 10;
export const SEARCH_DOMAINS_MAX = 50;
export const SEARCH_WINDOWS = ['5m', '15m', '1h', '6h', '24h', '7d'] as const;
export const SEARCH_WINDOW_DEFAULT = '24h';

export const SCRAPE_TIMEOUT_MIN_MS = 1000;
export const SCRAPE_TIMEOUT_MAX_MS = 300_000;
export const SCRAPE_TIMEOUT_DEFAULT_MS = 60_000;
/**
 * `waitFor` is at most half of the scrape's timeout, the one given or the default above, as the
 * hosted API rules: the rest of the timeout is left for loading the page and converting it. A
 * longer wait could only end in a 408 after the whole timeout was spent.
 */
export const WAIT_FOR_TIMEOUT_FRACTION = 0.5;
export const MAX_AGE_DEFAULT_MS = 172_800_000;
/** With `lockdown`, the default maxAge widens to two years. */
export const LOCKDOWN_MAX_AGE_DEFAULT_MS = 2 * 365 * 24 * 60 * 60 * 1000;

export const PDF_MAX_PAGES_MIN = 1;
export const PDF_MAX_PAGES_MAX = 10_000;

export const PROFILE_NAME_MIN_LENGTH = 1;
export const PROFILE_NAME_MAX_LENGTH = 128;

export const AUDIT_USERNAME_MAX_LENGTH = 1024;

export const THREAT_LIST_MAX = 1000;
export const RISK_SCORE_MIN = 0;
export const RISK_SCORE_MAX = 100;

/** `question.question` and `highlights.query`. */
export const QUESTION_MAX_LENGTH = 10_000;

export const IMAGE_QUALITY_MIN = 1;
export const IMAGE_QUALITY_MAX = 100;

/** A screenshot's viewport (of the format or of the action), in CSS pixels: at most 8K UHD. */
export const VIEWPORT_WIDTH_MAX = 7680;
export const VIEWPORT_HEIGHT_MAX = 4320;

/** Credit costs the spec states (§8). */
export const CREDITS = {
  lockdownHit: 5,
  lockdownMiss: 1,
  promptInjectionCheck: 4,
  /** The hosted API's price of LLM extraction (the json format, changeTracking's json mode). */
  jsonExtraction: 4,
  threatProtectionPerUrl: 2,
  pdfPerPage: 1,
  pdfBase64Flat: 1,
  /** The hosted API's surcharge on each page of a request with zeroDataRetention; serve can waive it for a team. */
  zeroDataRetentionPerPage: 1,
  /**
   * Each of the `video` and `audio` formats: neither §8 nor the hosted API's prices name one, so
   * it is priced as the other format that runs a heavy tool on the page, LLM extraction (4).
   */
  mediaFormat: 4,
} as const;

/**
 * The size of one definition file (or of standard input). A monitor at the URL bound below
 * (2,000 URLs of ~100 characters) is about 0.2 MB, so 8 MiB holds dozens of the largest
 * monitors, and 5,000 monitors of 40 URLs validate in about 6 s instead of reading gigabytes.
 * Values that no rule bounds (a long list in webhook.metadata) make the slowest files: 8 MiB
 * of one-digit items take 14 to 42 s (bench/many-documents.mjs).
 */
export const DEFINITION_FILE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Monitors in one definition file: its YAML documents (`---`), a document whose root is a list
 * counting as its items. A file of monitors holds a handful, but each costs the parser and the
 * checks about 0.1 ms however small it is, as a document or as an item, so the size limit alone
 * let 200,000 one-line monitors (1.4-3.5 MB) take 20 to 40 s. At this limit a file of them
 * validates in about 1.5 s (bench/many-documents.mjs).
 */
export const DEFINITION_FILE_MAX_MONITORS = 5000;

/**
 * Levels of nested objects and arrays in one JSON value, the top-level value being depth 1: a
 * monitor is at depth 1, its `webhook` at 2, `webhook.metadata` at 3. The same limit holds for
 * definition files and for request bodies, so that a definition that validates is one the API
 * accepts; it also keeps recursive parsers far from the call-stack limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * URLs of scrape targets: webwatch's bounds, not the interface's. 1,000 per target and 2,000 per
 * monitor keep a check's page results within one answer's default page (1,000) per target, and
 * a whole check at about four minutes at the engine's pace (4 pages at once, ~0.5 s a page),
 * under the 5-minute minimum interval, so that a monitor's size alone never makes checks overlap.
 */
export const SCRAPE_URLS_PER_TARGET_MAX = 1000;
export const SCRAPE_URLS_PER_MONITOR_MAX = 2000;

/**
 * Map (POST /v2/map): links per answer, as the hosted service bounds them (default 5,000, at
 * most 100,000), and its timeout, as a scrape's.
 */
export const MAP_LIMIT_DEFAULT = 5000;
export const MAP_LIMIT_MAX = 100_000;
export const MAP_SEARCH_MAX_LENGTH = 500;

/**
 * Web search (POST /v2/search): results per request, as the hosted API bounds them (default 5, at
 * most 100), and the query's length.
 */
export const SEARCH_LIMIT_DEFAULT = 5;
export const SEARCH_LIMIT_MAX = 100;
export const SEARCH_REQUEST_QUERY_MAX_LENGTH = 500;
/** Results scraped at once when a search asks for their content. */
export const SEARCH_SCRAPE_CONCURRENCY = 4;

/**
 * Batch scrape (POST /v2/batch/scrape): URLs per job. Its pages run as many at once as the team's
 * page slots allow, or fewer when the job's `maxConcurrency` says so.
 */
export const BATCH_URLS_MAX = 10_000;

/**
 * Crawl path patterns (`includePaths`, `excludePaths`): webwatch's bounds, not the interface's.
 * They run on a linear-time engine, whose cost per link grows with the pattern's compiled size:
 * at 1,000 instructions (`[^/]{1,500}` is about as large) a link of 2,000 characters still
 * takes about 10 ms in the worst case, while real patterns (`^/blog/.*`, `\.pdf$`) compile to
 * under 50. A hundred patterns per list is far beyond any real crawl's.
 */
export const PATH_PATTERN_MAX_LENGTH = 1000;
export const PATH_PATTERN_MAX_PROGRAM_SIZE = 1000;
export const PATH_PATTERNS_MAX = 100;

/**
 * Attempts at one webhook or e-mail delivery before it fails for good (docs/notifications.md):
 * 408, 429, 5xx and network failures are retried with backoff, up to this many in all.
 */
export const DELIVERY_MAX_ATTEMPTS = 8;
