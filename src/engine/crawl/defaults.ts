/** What a crawl does when its options leave a bound out; credits estimates use the limit too. */
export const CRAWL_DEFAULTS = { limit: 100, maxDepth: 10, maxConcurrency: 4, perHostConcurrency: 2 } as const;
