/** Every limit of spec §8 at its boundary (accepted) and one past it (rejected, with its path). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as limits from '../../src/spec/limits.js';
import { formatPath } from '../../src/spec/issues.js';
import { validateMonitorRequest } from '../../src/spec/schemas.js';
import { scrapeTarget, searchTarget, validMonitor } from '../helpers/monitors.js';

interface LimitCase {
  name: string;
  /** Builds a monitor with the limited value set to `n`. */
  build: (n: number) => Record<string, unknown>;
  path: string;
  ok: number[];
  bad: number[];
  message: RegExp;
}

const text = (n: number) => 'x'.repeat(n);
const list = <T>(n: number, item: (i: number) => T) => Array.from({ length: n }, (_, i) => item(i));
const scrape = (options: Record<string, unknown>) => validMonitor({ targets: [scrapeTarget(options)] });
const search = (overrides: Record<string, unknown>) => validMonitor({ goal: 'news', targets: [searchTarget(overrides)] });

const cases: LimitCase[] = [
  {
    name: 'monitor name',
    build: (n) => validMonitor({ name: text(n) }),
    path: 'name',
    ok: [1, limits.MONITOR_NAME_MAX_LENGTH],
    bad: [0, limits.MONITOR_NAME_MAX_LENGTH + 1],
    message: /characters|empty/,
  },
  {
    name: 'targets per monitor',
    build: (n) => validMonitor({ targets: list(n, () => scrapeTarget({})) }),
    path: 'targets',
    ok: [limits.TARGETS_MIN, limits.TARGETS_MAX],
    bad: [0, limits.TARGETS_MAX + 1],
    message: /items|at least one/,
  },
  {
    name: 'goal',
    build: (n) => validMonitor({ goal: text(n) }),
    path: 'goal',
    ok: [limits.GOAL_MAX_LENGTH],
    bad: [limits.GOAL_MAX_LENGTH + 1],
    message: /at most 2000 characters long \(this one has 2001\)/,
  },
  {
    name: 'retentionDays',
    build: (n) => validMonitor({ retentionDays: n }),
    path: 'retentionDays',
    ok: [limits.RETENTION_DAYS_MIN, limits.RETENTION_DAYS_MAX],
    bad: [limits.RETENTION_DAYS_MIN - 1, limits.RETENTION_DAYS_MAX + 1],
    message: /at (least 1|most 365)/,
  },
  {
    name: 'e-mail recipients',
    build: (n) => validMonitor({ notification: { email: { enabled: true, recipients: list(n, (i) => `r${i}@example.com`) } } }),
    path: 'notification.email.recipients',
    ok: [limits.EMAIL_RECIPIENTS_MAX],
    bad: [limits.EMAIL_RECIPIENTS_MAX + 1],
    message: /at most 25 items/,
  },
  {
    name: 'search queries per target',
    build: (n) => search({ queries: list(n, (i) => `q${i}`) }),
    path: 'targets[0].queries',
    ok: [limits.SEARCH_QUERIES_MIN, limits.SEARCH_QUERIES_MAX],
    bad: [0, limits.SEARCH_QUERIES_MAX + 1],
    message: /items|at least one/,
  },
  {
    name: 'search query length',
    build: (n) => search({ queries: [text(n)] }),
    path: 'targets[0].queries[0]',
    ok: [limits.SEARCH_QUERY_MIN_LENGTH, limits.SEARCH_QUERY_MAX_LENGTH],
    bad: [0, limits.SEARCH_QUERY_MAX_LENGTH + 1],
    message: /characters|empty/,
  },
  {
    name: 'search maxResults',
    build: (n) => search({ maxResults: n }),
    path: 'targets[0].maxResults',
    ok: [limits.SEARCH_MAX_RESULTS_MIN, limits.SEARCH_MAX_RESULTS_MAX],
    bad: [0, limits.SEARCH_MAX_RESULTS_MAX + 1],
    message: /at (least 1|most 50)/,
  },
  {
    name: 'includeDomains',
    build: (n) => search({ includeDomains: list(n, (i) => `d${i}.example.com`) }),
    path: 'targets[0].includeDomains',
    ok: [limits.SEARCH_DOMAINS_MAX],
    bad: [limits.SEARCH_DOMAINS_MAX + 1],
    message: /at most 50 items/,
  },
  {
    name: 'excludeDomains',
    build: (n) => search({ excludeDomains: list(n, (i) => `d${i}.example.com`) }),
    path: 'targets[0].excludeDomains',
    ok: [limits.SEARCH_DOMAINS_MAX],
    bad: [limits.SEARCH_DOMAINS_MAX + 1],
    message: /at most 50 items/,
  },
  {
    name: 'scrape timeout',
    build: (n) => scrape({ timeout: n }),
    path: 'targets[0].scrapeOptions.timeout',
    ok: [limits.SCRAPE_TIMEOUT_MIN_MS, limits.SCRAPE_TIMEOUT_MAX_MS],
    bad: [limits.SCRAPE_TIMEOUT_MIN_MS - 1, limits.SCRAPE_TIMEOUT_MAX_MS + 1],
    message: /at (least 1000|most 300000)/,
  },
  {
    name: 'PDF maxPages',
    build: (n) => scrape({ parsers: [{ type: 'pdf', maxPages: n }] }),
    path: 'targets[0].scrapeOptions.parsers[0].maxPages',
    ok: [limits.PDF_MAX_PAGES_MIN, limits.PDF_MAX_PAGES_MAX],
    bad: [0, limits.PDF_MAX_PAGES_MAX + 1],
    message: /at (least 1|most 10000)/,
  },
  {
    name: 'profile name',
    build: (n) => scrape({ profile: { name: text(n) } }),
    path: 'targets[0].scrapeOptions.profile.name',
    ok: [limits.PROFILE_NAME_MIN_LENGTH, limits.PROFILE_NAME_MAX_LENGTH],
    bad: [0, limits.PROFILE_NAME_MAX_LENGTH + 1],
    message: /characters|empty/,
  },
  {
    name: 'auditMetadata.username',
    build: (n) => scrape({ auditMetadata: { username: text(n) } }),
    path: 'targets[0].scrapeOptions.auditMetadata.username',
    ok: [limits.AUDIT_USERNAME_MAX_LENGTH],
    bad: [limits.AUDIT_USERNAME_MAX_LENGTH + 1],
    message: /at most 1024 characters/,
  },
  {
    name: 'threat blacklist',
    build: (n) => scrape({ threatProtection: { blacklist: list(n, (i) => `b${i}.example.com`) } }),
    path: 'targets[0].scrapeOptions.threatProtection.blacklist',
    ok: [limits.THREAT_LIST_MAX],
    bad: [limits.THREAT_LIST_MAX + 1],
    message: /at most 1000 items/,
  },
  {
    name: 'threat whitelist',
    build: (n) => scrape({ threatProtection: { whitelist: list(n, (i) => `w${i}.example.com`) } }),
    path: 'targets[0].scrapeOptions.threatProtection.whitelist',
    ok: [limits.THREAT_LIST_MAX],
    bad: [limits.THREAT_LIST_MAX + 1],
    message: /at most 1000 items/,
  },
  {
    name: 'threat blockedTlds',
    build: (n) => scrape({ threatProtection: { blockedTlds: list(n, (i) => `t${i}`) } }),
    path: 'targets[0].scrapeOptions.threatProtection.blockedTlds',
    ok: [limits.THREAT_LIST_MAX],
    bad: [limits.THREAT_LIST_MAX + 1],
    message: /at most 1000 items/,
  },
  {
    name: 'riskScoreThreshold',
    build: (n) => scrape({ threatProtection: { riskScoreThreshold: n } }),
    path: 'targets[0].scrapeOptions.threatProtection.riskScoreThreshold',
    ok: [limits.RISK_SCORE_MIN, limits.RISK_SCORE_MAX],
    bad: [limits.RISK_SCORE_MIN - 1, limits.RISK_SCORE_MAX + 1],
    message: /at (least 0|most 100)/,
  },
  {
    name: 'question text',
    build: (n) => scrape({ formats: [{ type: 'question', question: text(n) }] }),
    path: 'targets[0].scrapeOptions.formats[0].question',
    ok: [limits.QUESTION_MAX_LENGTH],
    bad: [limits.QUESTION_MAX_LENGTH + 1],
    message: /at most 10000 characters/,
  },
  {
    name: 'highlights query',
    build: (n) => scrape({ formats: [{ type: 'highlights', query: text(n) }] }),
    path: 'targets[0].scrapeOptions.formats[0].query',
    ok: [limits.QUESTION_MAX_LENGTH],
    bad: [limits.QUESTION_MAX_LENGTH + 1],
    message: /at most 10000 characters/,
  },
  {
    name: 'screenshot quality',
    build: (n) => scrape({ formats: [{ type: 'screenshot', quality: n }] }),
    path: 'targets[0].scrapeOptions.formats[0].quality',
    ok: [limits.IMAGE_QUALITY_MIN, limits.IMAGE_QUALITY_MAX],
    bad: [0, limits.IMAGE_QUALITY_MAX + 1],
    message: /at (least 1|most 100)/,
  },
  {
    name: 'screenshot viewport width',
    build: (n) => scrape({ formats: [{ type: 'screenshot', viewport: { width: n, height: 1080 } }] }),
    path: 'targets[0].scrapeOptions.formats[0].viewport.width',
    ok: [1, limits.VIEWPORT_WIDTH_MAX],
    bad: [0, limits.VIEWPORT_WIDTH_MAX + 1],
    message: /must be (more than 0|at most 7680 \(got 7681\))/,
  },
  {
    name: 'screenshot viewport height',
    build: (n) => scrape({ formats: [{ type: 'screenshot', viewport: { width: 1920, height: n } }] }),
    path: 'targets[0].scrapeOptions.formats[0].viewport.height',
    ok: [1, limits.VIEWPORT_HEIGHT_MAX],
    bad: [0, limits.VIEWPORT_HEIGHT_MAX + 1],
    message: /must be (more than 0|at most 4320 \(got 4321\))/,
  },
  {
    name: 'screenshot action viewport width',
    build: (n) => scrape({ actions: [{ type: 'screenshot', viewport: { width: n, height: 1080 } }] }),
    path: 'targets[0].scrapeOptions.actions[0].viewport.width',
    ok: [limits.VIEWPORT_WIDTH_MAX],
    bad: [limits.VIEWPORT_WIDTH_MAX + 1],
    message: /at most 7680/,
  },
  {
    name: 'screenshot action viewport height',
    build: (n) => scrape({ actions: [{ type: 'screenshot', viewport: { width: 1920, height: n } }] }),
    path: 'targets[0].scrapeOptions.actions[0].viewport.height',
    ok: [limits.VIEWPORT_HEIGHT_MAX],
    bad: [limits.VIEWPORT_HEIGHT_MAX + 1],
    message: /at most 4320/,
  },
];

describe('spec §8 limits', () => {
  for (const c of cases) {
    it(`${c.name}: accepts ${c.ok.join(' and ')}, rejects ${c.bad.join(' and ')}`, () => {
      for (const n of c.ok) {
        const result = validateMonitorRequest(c.build(n), 'file');
        assert.ok(result.ok, `${c.name} = ${n} should be valid: ${JSON.stringify(!result.ok && result.problems)}`);
      }
      for (const n of c.bad) {
        const result = validateMonitorRequest(c.build(n), 'file');
        assert.ok(!result.ok, `${c.name} = ${n} should be rejected`);
        const problem = result.problems.find((p) => formatPath(p.path) === c.path);
        assert.ok(problem, `${c.name} = ${n}: no problem at ${c.path}: ${JSON.stringify(result.problems)}`);
        assert.match(problem.message, c.message);
      }
    });
  }
});
