/** Cross-field rules, closed objects, and the field formats of the interface. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatPath } from '../../src/spec/issues.js';
import { PATH_PATTERN_MAX_LENGTH, PATH_PATTERN_MAX_PROGRAM_SIZE, PATH_PATTERNS_MAX, SCRAPE_TIMEOUT_DEFAULT_MS } from '../../src/spec/limits.js';
import { normalizeMonitor } from '../../src/spec/monitor.js';
import { validateMonitorRequest, validateScrapeOptions } from '../../src/spec/schemas.js';
import { scrapeTarget, searchTarget, validMonitor } from '../helpers/monitors.js';

function problems(input: unknown, mode: 'file' | 'wire' = 'file') {
  const result = validateMonitorRequest(input, mode);
  return result.ok ? [] : result.problems.map((p) => ({ path: formatPath(p.path), message: p.message }));
}

function problemAt(input: unknown, path: string, mode: 'file' | 'wire' = 'file') {
  const found = problems(input, mode).find((p) => p.path === path);
  assert.ok(found, `expected a problem at ${path}, got ${JSON.stringify(problems(input, mode))}`);
  return found.message;
}

function normalized(input: Record<string, unknown>) {
  const result = validateMonitorRequest(input, 'file');
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  return normalizeMonitor(result.value);
}

describe('goal and judgeEnabled (spec §2.1)', () => {
  it('rule 1: a goal with judgeEnabled omitted turns judging on', () => {
    assert.equal(normalized(validMonitor({ goal: 'price changes' })).judgeEnabled, true);
    assert.equal(normalized(validMonitor({ goal: 'price changes', judgeEnabled: false })).judgeEnabled, false);
    assert.equal(normalized(validMonitor({})).judgeEnabled, false);
    assert.equal(normalized(validMonitor({ goal: '   ' })).goal, null);
  });

  it('rule 2: judgeEnabled true needs a non-empty goal', () => {
    assert.match(problemAt(validMonitor({ judgeEnabled: true }), 'judgeEnabled'), /needs a non-empty goal/);
    assert.match(problemAt(validMonitor({ judgeEnabled: true, goal: '' }), 'judgeEnabled'), /needs a non-empty goal/);
    assert.deepEqual(problems(validMonitor({ judgeEnabled: true, goal: 'x' })), []);
  });

  it('rule 3: a search target needs a goal unless judgeEnabled is false', () => {
    const monitor = validMonitor({ targets: [scrapeTarget({}), searchTarget()] });
    assert.match(problemAt(monitor, 'goal'), /goal is required when a target has type search \(targets\[1\]\), unless judgeEnabled is false/);
    assert.deepEqual(problems({ ...monitor, judgeEnabled: false }), []);
    assert.deepEqual(problems({ ...monitor, goal: 'new papers on X' }), []);
  });

  it('reports the rules together with schema errors', () => {
    const found = problems(validMonitor({ retentionDays: 0, targets: [searchTarget()] }));
    assert.deepEqual(found.map((p) => p.path).sort(), ['goal', 'retentionDays']);
  });
});

describe('unknown keys', () => {
  it('are errors in definition files, one per key, with a suggestion', () => {
    const found = problems({ ...validMonitor(), nmae: 'x', retentionDay: 3, zzz: 1 });
    assert.deepEqual(found, [
      { path: 'nmae', message: 'unknown field "nmae" (did you mean "name"?)' },
      { path: 'retentionDay', message: 'unknown field "retentionDay" (did you mean "retentionDays"?)' },
      { path: 'zzz', message: 'unknown field "zzz"' },
    ]);
  });

  it('are errors deep inside scrape options', () => {
    const message = problemAt(validMonitor({ targets: [scrapeTarget({ onlyMainContnt: true })] }), 'targets[0].scrapeOptions.onlyMainContnt');
    assert.match(message, /did you mean "onlyMainContent"/);
  });

  it('are errors on the wire too, in every object, one per key, naming it', () => {
    assert.deepEqual(problems({ ...validMonitor(), extra: 1 }, 'wire'), [{ path: 'extra', message: 'unknown field "extra"' }]);
    const options = (scrapeOptions: Record<string, unknown>) => validMonitor({ targets: [scrapeTarget(scrapeOptions)] });
    const at = 'targets[0].scrapeOptions';
    const cases: [Record<string, unknown>, string][] = [
      [options({ onlyMainContnt: true }), `${at}.onlyMainContnt`],
      [options({ auditMetadata: { username: 'a', team: 'b' } }), `${at}.auditMetadata.team`],
      [options({ redactPII: { mode: 'fast', style: 'tag' } }), `${at}.redactPII.style`],
      [options({ location: { country: 'DE', city: 'Berlin' } }), `${at}.location.city`],
      [options({ profile: { name: 'p', shared: true } }), `${at}.profile.shared`],
      [options({ threatProtection: { mode: 'normal', level: 3 } }), `${at}.threatProtection.level`],
      [options({ parsers: [{ type: 'pdf', ocr: true }] }), `${at}.parsers[0].ocr`],
      [options({ formats: [{ type: 'json', prompt: 'p', systemPrompt: 's' }] }), `${at}.formats[0].systemPrompt`],
      [options({ formats: [{ type: 'screenshot', fullPage: true, zoom: 2 }] }), `${at}.formats[0].zoom`],
      [options({ formats: [{ type: 'screenshot', viewport: { width: 800, height: 600, scale: 2 } }] }), `${at}.formats[0].viewport.scale`],
      [options({ formats: [{ type: 'changeTracking', modes: ['json'], schemas: {} }] }), `${at}.formats[0].schemas`],
      [options({ formats: [{ type: 'question', question: 'q', prompt: 'p' }] }), `${at}.formats[0].prompt`],
      [options({ formats: [{ type: 'highlights', query: 'q', limit: 3 }] }), `${at}.formats[0].limit`],
      [options({ formats: [{ type: 'markdown', prompt: 'p' }] }), `${at}.formats[0].prompt`],
      [options({ actions: [{ type: 'wait', milliseconds: 5, extra: 1 }] }), `${at}.actions[0].extra`],
      [options({ actions: [{ type: 'click', selector: 'a', delay: 5 }] }), `${at}.actions[0].delay`],
      [options({ actions: [{ type: 'screenshot', viewport: { width: 800, height: 600, dpr: 2 } }] }), `${at}.actions[0].viewport.dpr`],
      [validMonitor({ schedule: { cron: '0 * * * *', every: 'hour' } }), 'schedule.every'],
      [validMonitor({ webhook: { url: 'https://example.com/hook', secret: 's' } }), 'webhook.secret'],
      [validMonitor({ notification: { email: { enabled: true, cc: [] } } }), 'notification.email.cc'],
      [validMonitor({ targets: [{ ...scrapeTarget({}), label: 'x' }] }), 'targets[0].label'],
      [validMonitor({ targets: [{ type: 'crawl', url: 'https://example.com', crawlOptions: { depth: 2 } }] }), 'targets[0].crawlOptions.depth'],
    ];
    for (const [monitor, path] of cases) {
      for (const mode of ['file', 'wire'] as const) {
        assert.match(problemAt(monitor, path, mode), /^unknown field "/, `${mode}: ${path}`);
      }
    }
  });

  it('on the wire, are not the fields the hosted SDK adds to requests; in files they are', () => {
    const monitor = validMonitor({
      origin: 'js-sdk@4.42.0',
      integration: 'cli',
      targets: [
        scrapeTarget({
          origin: 'js-sdk',
          integration: 'cli',
          fastMode: true,
          useMock: 'm',
          domainTools: false,
          toolDetail: 'full',
          parsers: [{ type: 'pdf', pageMarkdown: true }],
        }),
        {
          type: 'crawl',
          url: 'https://example.com',
          crawlOptions: {
            maxDiscoveryDepth: 2,
            deduplicateSimilarURLs: true,
            robotsUserAgent: 'bot',
            prompt: 'blog posts',
            webhook: 'https://example.com/hook',
            zeroDataRetention: false,
            origin: 'js-sdk',
            integration: 'cli',
          },
        },
      ],
    });
    assert.deepEqual(problems(monitor, 'wire'), []);
    assert.deepEqual(
      problems(monitor, 'file')
        .map((p) => p.path)
        .sort(),
      [
        'integration',
        'origin',
        'targets[0].scrapeOptions.domainTools',
        'targets[0].scrapeOptions.fastMode',
        'targets[0].scrapeOptions.integration',
        'targets[0].scrapeOptions.origin',
        'targets[0].scrapeOptions.parsers[0].pageMarkdown',
        'targets[0].scrapeOptions.toolDetail',
        'targets[0].scrapeOptions.useMock',
        'targets[1].crawlOptions.deduplicateSimilarURLs',
        'targets[1].crawlOptions.integration',
        'targets[1].crawlOptions.maxDiscoveryDepth',
        'targets[1].crawlOptions.origin',
        'targets[1].crawlOptions.prompt',
        'targets[1].crawlOptions.robotsUserAgent',
        'targets[1].crawlOptions.webhook',
        'targets[1].crawlOptions.zeroDataRetention',
      ].sort(),
    );
  });

  it('the SDK fields of scrape options are dropped from what the wire gives the engine; pageMarkdown is pages', () => {
    const result = validateScrapeOptions(
      {
        formats: ['markdown'],
        origin: 'js-sdk',
        integration: 'cli',
        fastMode: true,
        useMock: 'm',
        domainTools: true,
        toolDetail: 'compact',
        parsers: [
          { type: 'pdf', pageMarkdown: true },
          { type: 'pdf', pages: false, pageMarkdown: true },
        ],
      },
      'wire',
    );
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    assert.deepEqual(result.value, {
      formats: ['markdown'],
      parsers: [
        { type: 'pdf', pages: true },
        { type: 'pdf', pages: false },
      ],
    });
  });

  it("a crawl target's scrapeOptions inside crawlOptions is refused, pointing beside it", () => {
    const monitor = validMonitor({ targets: [{ type: 'crawl', url: 'https://example.com', crawlOptions: { scrapeOptions: { formats: ['html'] } } }] });
    assert.match(problemAt(monitor, 'targets[0].crawlOptions.scrapeOptions', 'wire'), /goes beside crawlOptions: a crawl target has its own scrapeOptions/);
  });
});

describe('waitFor and timeout', () => {
  const at = 'targets[0].scrapeOptions.waitFor';
  const options = (scrapeOptions: Record<string, unknown>) => validMonitor({ targets: [scrapeTarget(scrapeOptions)] });

  it('waitFor may be at most half of the timeout given', () => {
    for (const mode of ['file', 'wire'] as const) {
      assert.deepEqual(problems(options({ waitFor: 5000, timeout: 15000 }), mode), []);
      assert.deepEqual(problems(options({ waitFor: 7500, timeout: 15000 }), mode), []);
      for (const waitFor of [7501, 8000, 15000, 20000]) {
        assert.equal(
          problemAt(options({ waitFor, timeout: 15000 }), at, mode),
          `waitFor must not exceed half of timeout: ${waitFor} ms is more than half of the timeout of 15000 ms (7500 ms); a timeout of at least ${waitFor * 2} ms allows it`,
        );
      }
    }
  });

  it('without a timeout, the default timeout (60000 ms) is the one, and the message says so', () => {
    assert.equal(SCRAPE_TIMEOUT_DEFAULT_MS, 60_000);
    assert.deepEqual(problems(options({ waitFor: 30_000 })), []);
    assert.equal(
      problemAt(options({ waitFor: 30_001 }), at),
      'waitFor must not exceed half of timeout: 30001 ms is more than half of the default timeout of 60000 ms, which applies as timeout is not given (30000 ms); a timeout of at least 60002 ms allows it',
    );
    assert.deepEqual(problems(options({ waitFor: 40_000, timeout: 80_000 })), []);
  });

  it('says when no timeout can allow the wait', () => {
    assert.match(problemAt(options({ waitFor: 150_001, timeout: 300_000 }), at), /no timeout allows it: the longest, 300000 ms, allows at most 150000 ms$/);
  });

  it('is reported with the other problems, and not over a timeout that is itself wrong', () => {
    const found = problems(options({ waitFor: 8000, timeout: 15000, onlyMainContnt: true }));
    assert.deepEqual(found.map((p) => p.path).sort(), ['targets[0].scrapeOptions.onlyMainContnt', at]);
    assert.deepEqual(
      problems(options({ waitFor: 8000, timeout: 400_000 })).map((p) => p.path),
      ['targets[0].scrapeOptions.timeout'],
    );
    assert.deepEqual(
      problems(options({ waitFor: -1, timeout: 15000 })).map((p) => p.path),
      [at],
    );
  });

  it('holds wherever scrape options are: a crawl target, and scrape options alone', () => {
    const crawl = validMonitor({ targets: [{ type: 'crawl', url: 'https://example.com', scrapeOptions: { waitFor: 40_000 } }] });
    assert.match(problemAt(crawl, 'targets[0].scrapeOptions.waitFor', 'wire'), /^waitFor must not exceed half of timeout: 40000 ms/);
    for (const mode of ['file', 'wire'] as const) {
      const result = validateScrapeOptions({ waitFor: 20_000, timeout: 15_000 }, mode);
      assert.ok(!result.ok);
      assert.deepEqual(
        result.problems.map((p) => formatPath(p.path)),
        ['waitFor'],
      );
    }
  });
});

describe('field formats', () => {
  const threat = (tp: Record<string, unknown>) => validMonitor({ targets: [scrapeTarget({ threatProtection: tp })] });
  const base = 'targets[0].scrapeOptions.threatProtection';

  it('domain lists reject protocols, paths and ports and accept *. wildcards', () => {
    assert.match(problemAt(threat({ blacklist: ['https://evil.com'] }), `${base}.blacklist[0]`), /without a protocol/);
    assert.match(problemAt(threat({ blacklist: ['evil.com/path'] }), `${base}.blacklist[0]`), /without a path/);
    assert.match(problemAt(threat({ whitelist: ['good.com:443'] }), `${base}.whitelist[0]`), /without a port/);
    assert.match(problemAt(threat({ blacklist: ['ev*l.com'] }), `${base}.blacklist[0]`), /only as a leading/);
    assert.deepEqual(problems(threat({ blacklist: ['evil.com', '*.evil.org'], whitelist: ['ok.example.com'] })), []);
    const search = validMonitor({ goal: 'g', targets: [searchTarget({ includeDomains: ['*.example.com'] })] });
    assert.match(problemAt(search, 'targets[0].includeDomains[0]'), /must not contain a wildcard/);
  });

  it('blockedTlds are lowercase without a leading dot', () => {
    assert.match(problemAt(threat({ blockedTlds: ['.zip'] }), `${base}.blockedTlds[0]`), /must not start with a dot \(write "zip"\)/);
    assert.match(problemAt(threat({ blockedTlds: ['ZIP'] }), `${base}.blockedTlds[0]`), /must be lowercase/);
    assert.deepEqual(problems(threat({ blockedTlds: ['zip', 'co.uk', 'xn--p1ai'] })), []);
  });

  it('location.country is two capital letters', () => {
    const at = (country: string) => validMonitor({ targets: [scrapeTarget({ location: { country } })] });
    assert.match(problemAt(at('us'), 'targets[0].scrapeOptions.location.country'), /two-letter/);
    assert.match(problemAt(at('USA'), 'targets[0].scrapeOptions.location.country'), /two-letter/);
    assert.deepEqual(problems(at('DE')), []);
  });

  it('target id is a UUID', () => {
    const at = (id: string) => validMonitor({ targets: [{ ...scrapeTarget({}), id }] });
    assert.match(problemAt(at('target-1'), 'targets[0].id'), /must be a UUID/);
    assert.deepEqual(problems(at('0b7c6f7e-9f7a-4c1e-8d5a-2f0e4b6a9c31')), []);
  });

  it('URLs are absolute http(s)', () => {
    const at = (url: string) => validMonitor({ targets: [{ type: 'scrape', urls: [url] }] });
    assert.match(problemAt(at('example.com'), 'targets[0].urls[0]'), /absolute URL/);
    assert.match(problemAt(at('ftp://example.com/x'), 'targets[0].urls[0]'), /http or https, not ftp/);
    assert.match(problemAt(validMonitor({ webhook: { url: 'javascript:alert(1)' } }), 'webhook.url'), /http or https/);
  });

  it('target type is a discriminator with a suggestion', () => {
    assert.match(
      problemAt(validMonitor({ targets: [{ type: 'crawler', url: 'https://x.com' }] }), 'targets[0].type'),
      /one of scrape, crawl, search \(did you mean "crawl"\?\)/,
    );
    assert.match(problemAt(validMonitor({ targets: [{ url: 'https://x.com' }] }), 'targets[0].type'), /is required: one of scrape, crawl, search/);
  });

  it('formats: names, options, and no duplicates', () => {
    const formats = (list: unknown[]) => validMonitor({ targets: [scrapeTarget({ formats: list })] });
    assert.match(problemAt(formats(['markdown', 'markdown']), 'targets[0].scrapeOptions.formats[1]'), /listed twice/);
    assert.match(problemAt(formats(['highlights']), 'targets[0].scrapeOptions.formats[0]'), /needs options/);
    assert.match(problemAt(formats([{ type: 'screenshot', viewport: { width: 100 } }]), 'targets[0].scrapeOptions.formats[0].viewport.height'), /is required/);
    assert.deepEqual(problems(formats(['markdown', { type: 'json', prompt: 'p' }, { type: 'changeTracking', modes: ['git-diff'], tag: null }])), []);
  });

  it('actions: each type with its required fields', () => {
    const actions = (list: unknown[]) => validMonitor({ targets: [scrapeTarget({ actions: list })] });
    assert.match(problemAt(actions([{ type: 'write' }]), 'targets[0].scrapeOptions.actions[0].text'), /is required/);
    assert.match(problemAt(actions([{ type: 'pdf', format: 'A7' }]), 'targets[0].scrapeOptions.actions[0].format'), /one of A0/);
    assert.match(problemAt(actions([{ type: 'wait', milliseconds: 0 }]), 'targets[0].scrapeOptions.actions[0].milliseconds'), /at least 1/);
    assert.deepEqual(
      problems(
        actions([
          { type: 'wait', milliseconds: 500 },
          { type: 'wait', selector: '#main' },
          { type: 'click', selector: 'button', all: true },
          { type: 'write', text: 'hi' },
          { type: 'press', key: 'Enter' },
          { type: 'scroll', direction: 'up' },
          { type: 'scrape' },
          { type: 'executeJavascript', script: 'return 1' },
          { type: 'pdf', format: 'A4', landscape: true, scale: 0.5 },
          { type: 'screenshot', fullPage: true, quality: 80, viewport: { width: 800, height: 600 } },
        ]),
      ),
      [],
    );
  });

  it('crawl include/exclude paths must be regular expressions', () => {
    const crawl = validMonitor({ targets: [{ type: 'crawl', url: 'https://x.com', crawlOptions: { includePaths: ['^/blog/(', '^/ok/'] } }] });
    assert.match(problemAt(crawl, 'targets[0].crawlOptions.includePaths[0]'), /not a valid regular expression/);
  });

  it('crawl paths run on a linear-time engine: what needs backtracking, or costs too much, is refused by name', () => {
    const paths = (includePaths: unknown[], excludePaths: unknown[] = []) =>
      validMonitor({ targets: [{ type: 'crawl', url: 'https://x.com', crawlOptions: { includePaths, excludePaths } }] });
    // Patterns of the kind that froze the server are taken, and run in linear time (engine tests).
    assert.deepEqual(problems(paths(['^/(a+)+$', '^/blog/.*', '\\.pdf$', '^/(en|de)/[0-9]{4}/'], ['^(.|.)+!$'])), []);
    assert.match(
      problemAt(paths(['^/(?=blog)']), 'targets[0].crawlOptions.includePaths[0]'),
      /lookahead and lookbehind are not supported: patterns run on a linear-time engine/,
    );
    assert.match(problemAt(paths([], ['^/(?<!x)a']), 'targets[0].crawlOptions.excludePaths[0]'), /lookahead and lookbehind are not supported/);
    assert.match(problemAt(paths(['^/(a)\\1$']), 'targets[0].crawlOptions.includePaths[0]'), /backreferences are not supported/);
    assert.match(
      problemAt(paths(['^/[^/]{1,900}$']), 'targets[0].crawlOptions.includePaths[0]'),
      new RegExp(`too costly to match \\(program size \\d+, at most ${PATH_PATTERN_MAX_PROGRAM_SIZE}\\)`),
    );
    assert.match(
      problemAt(paths([`^/${'a'.repeat(PATH_PATTERN_MAX_LENGTH)}`]), 'targets[0].crawlOptions.includePaths[0]'),
      new RegExp(`longer than ${PATH_PATTERN_MAX_LENGTH} characters`),
    );
    assert.ok(problemAt(paths(Array.from({ length: PATH_PATTERNS_MAX + 1 }, (_, i) => `^/${i}/`)), 'targets[0].crawlOptions.includePaths'));
  });

  it('types are named in plain words', () => {
    assert.equal(problemAt(validMonitor({ retentionDays: '30' }), 'retentionDays'), 'must be a number, not the text "30"');
    assert.equal(problemAt(validMonitor({ retentionDays: 2.5 }), 'retentionDays'), 'must be a whole number, not the number 2.5');
    assert.equal(problemAt(validMonitor({ targets: 'https://x.com' }), 'targets'), 'must be a list, not the text "https://x.com"');
  });
});

describe('update request (PATCH)', () => {
  it('takes any create field and a status of active or paused', async () => {
    const { monitorSchemas } = await import('../../src/spec/schemas.js');
    const update = monitorSchemas('file').updateRequest;
    assert.ok(update.safeParse({ status: 'paused' }).success);
    assert.ok(update.safeParse({ retentionDays: 10, goal: 'x' }).success);
    assert.ok(!update.safeParse({ status: 'deleted' }).success);
    assert.ok(!update.safeParse({ retentionDays: 0 }).success);
    assert.ok(!update.safeParse({ nmae: 'x' }).success);
  });

  it("on the wire, null for webhook or notification removes it (the hosted SDK's UpdateMonitorRequest); a file has no use for it", async () => {
    const { monitorSchemas } = await import('../../src/spec/schemas.js');
    assert.ok(monitorSchemas('wire').updateRequest.safeParse({ webhook: null, notification: null, goal: null }).success);
    assert.ok(!monitorSchemas('file').updateRequest.safeParse({ webhook: null }).success);
    const merged = validMonitor({ webhook: null, notification: null });
    assert.deepEqual(problems(merged, 'wire'), []);
    const result = validateMonitorRequest(merged, 'wire');
    assert.ok(result.ok);
    assert.deepEqual(
      Object.keys(normalizeMonitor(result.value)).filter((name) => name === 'webhook' || name === 'notification'),
      [],
    );
  });
});
