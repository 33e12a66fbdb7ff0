/**
 * `webwatch init`: a starter definition file a newcomer edits rather than writes. One target of
 * the chosen kind is live; the other kinds, a goal and the notifications are there as comments,
 * so the file both validates as written and shows what can go in it.
 */
import { TARGET_TYPES } from '../../spec/monitor.js';

export type StarterType = (typeof TARGET_TYPES)[number];

export interface StarterOptions {
  type: StarterType;
  name: string;
  /** The page (scrape) or start page (crawl); a search has queries instead. */
  url?: string;
  /** What the editor's `$schema` comment points at, relative to the file. */
  schemaPath: string;
}

const DEFAULT_URL = { scrape: 'https://example.com/pricing', crawl: 'https://example.com/docs/' } as const;

/** One target of each kind, as YAML lines under `targets:`. */
function targetLines(type: StarterType, url: string | undefined): string[] {
  switch (type) {
    case 'scrape':
      return [
        '  - type: scrape                      # these pages, each compared with its last copy',
        '    urls:',
        `      - ${url ?? DEFAULT_URL.scrape}`,
        '    scrapeOptions:',
        '      formats: [markdown]',
        '      onlyMainContent: true             # leave out navigation, footers and ads',
      ];
    case 'crawl':
      return [
        '  - type: crawl                       # every page a crawl finds from a start page',
        `    url: ${url ?? DEFAULT_URL.crawl}`,
        '    crawlOptions:',
        '      limit: 50                         # pages at most',
        '      maxDepth: 2                       # links followed from the start page',
        '      includePaths: ["^/docs/.*"]       # regular expressions on the path',
      ];
    case 'search':
      return [
        '  - type: search                      # new results of web searches, judged against the goal',
        '    queries:',
        '      - example.com pricing',
        '    maxResults: 10',
        '    searchWindow: 7d                    # results of the last 7 days',
      ];
  }
}

const commented = (lines: string[]) => lines.map((line) => `#${line}`);

/** The file's text: it validates as written (a test checks every kind). */
export function starterDefinition(options: StarterOptions): string {
  const { type, name, url, schemaPath } = options;
  const others = TARGET_TYPES.filter((other) => other !== type);
  // A search target's results are judged against the goal: it is live there, a comment elsewhere.
  const goal = 'Tell me when a price, a plan or its limits change';
  return [
    `# yaml-language-server: $schema=${schemaPath}`,
    '# A webwatch monitor. Edit it, then:',
    '#   webwatch monitor validate <this file>    # every rule checked, nothing sent',
    '#   webwatch monitor apply <this file>       # create it, or update it to match',
    `#   webwatch monitor run "${name.replace(/"/g, '\\"')}"`,
    `name: ${JSON.stringify(name)}`,
    'schedule:',
    '  text: daily at 9 am                   # or cron: "0 9 * * *"',
    '  timezone: UTC',
    type === 'search' ? `goal: ${goal}` : `# goal: ${goal}   # judge changes against this (a model if configured, else the lexical judge)`,
    'targets:',
    ...targetLines(type, url),
    '',
    '# Other kinds of target, to add under targets:',
    ...others.flatMap((other) => ['#', ...commented(targetLines(other, undefined))]),
    '',
    '# Where to hear about changes:',
    '# webhook:',
    '#   url: https://hooks.example.com/webwatch',
    '#   headers:',
    '#     Authorization: Bearer ${WEBHOOK_TOKEN}    # from the environment, never written here',
    '# notification:',
    '#   email:',
    '#     enabled: true',
    '#     recipients: [you@example.com]',
    '',
  ].join('\n');
}
