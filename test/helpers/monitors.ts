/** A valid monitor create request to vary in tests. */
export function validMonitor(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Pricing',
    schedule: { cron: '0 * * * *' },
    targets: [{ type: 'scrape', urls: ['https://example.com/pricing'] }],
    ...overrides,
  };
}

export function scrapeTarget(scrapeOptions: Record<string, unknown>): Record<string, unknown> {
  return { type: 'scrape', urls: ['https://example.com/'], scrapeOptions };
}

export function searchTarget(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'search', queries: ['webwatch release'], ...overrides };
}
