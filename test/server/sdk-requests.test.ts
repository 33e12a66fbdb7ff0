/**
 * Closed request bodies still take everything the hosted service's clients send. The JS SDK
 * (@mendable/firecrawl-js) posts, through its own methods, a request of every kind with every
 * field its types give (`Required<...>`, so that a field added to the SDK fails this file's
 * compilation until it is judged here), and the CLI (firecrawl-cli) runs with its flags; none
 * of them is answered 400. The fields webwatch refuses on purpose are refused by name.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Firecrawl, {
  type ActionOption,
  type BatchScrapeOptions,
  type ChangeTrackingFormat,
  type CrawlOptions,
  type CreateMonitorRequest,
  type HighlightsFormat,
  type JsonFormat,
  type LocationConfig,
  type MapOptions,
  type MonitorCrawlTarget,
  type MonitorEmailNotification,
  type MonitorNotification,
  type MonitorSchedule,
  type MonitorScrapeTarget,
  type MonitorSearchTarget,
  type MonitorWebhookConfig,
  type PDFParser,
  type QuestionFormat,
  type RedactPIIOptions,
  type ScrapeOptions,
  type ScreenshotFormat,
  type SearchRequest,
  type ThreatProtectionOptions,
  type UpdateMonitorRequest,
  type WebhookConfig,
} from '@mendable/firecrawl-js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { tempDir } from '../helpers/files.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const FIRECRAWL_CLI = createRequire(import.meta.url).resolve('firecrawl-cli/dist/index.js');
const exec = promisify(execFile);

type AgentRequest = Parameters<Firecrawl['startAgent']>[0];
type ExtractRequest = Parameters<Firecrawl['startExtract']>[0];

// Values within the interface and the local engine (proxy `stealth`, threat mode `zscaler`, the
// `attributes` and `query` formats and the `image` parser are outside the one, the `audio` and
// `video` formats outside the other: see the last test).
const threatProtection: Required<ThreatProtectionOptions> = {
  mode: 'normal',
  riskScoreThreshold: 50,
  blacklist: ['*.bad.example'],
  whitelist: ['good.example'],
  blockedTlds: ['zip'],
  failurePolicy: 'open',
};
const location: Required<LocationConfig> = { country: 'DE', languages: ['de-DE', 'en'] };
const json: Required<JsonFormat> = {
  type: 'json',
  prompt: 'the price',
  schema: { type: 'object', properties: { price: { type: 'number' } } },
  checkPromptInjection: false,
};
const screenshot: Required<ScreenshotFormat> = { type: 'screenshot', fullPage: false, quality: 80, viewport: { width: 1280, height: 720 } };
const changeTracking: Required<ChangeTrackingFormat> = {
  type: 'changeTracking',
  modes: ['git-diff', 'json'],
  schema: { type: 'object' },
  prompt: 'changes',
  tag: 'daily',
};
const question: Required<QuestionFormat> = { type: 'question', question: 'What does it cost?' };
const highlights: Required<HighlightsFormat> = { type: 'highlights', query: 'price' };
const pdf: Required<PDFParser> = { type: 'pdf', mode: 'auto', maxPages: 20, pages: true, pageMarkdown: true, blocks: false, pageMarkers: false };
const redactPII: Required<RedactPIIOptions> = { mode: 'fast', entities: ['EMAIL', 'PHONE'], replaceStyle: 'mask' };
const actions: ActionOption[] = [
  { type: 'wait', milliseconds: 10 },
  { type: 'wait', selector: 'main' },
  { type: 'click', selector: 'a' },
  { type: 'write', text: 'hi' },
  { type: 'press', key: 'Enter' },
  { type: 'scroll', direction: 'down', selector: 'main' },
  { type: 'scrape' },
  { type: 'executeJavascript', script: 'return 1' },
  { type: 'pdf', format: 'A4', landscape: true, scale: 1 },
  { type: 'screenshot', fullPage: true, quality: 50, viewport: { width: 800, height: 600 } },
];

/** Every field of the SDK's ScrapeOptions; lockdown keeps every scrape in the cache (nothing is fetched). */
const scrapeOptions: Required<ScrapeOptions> = {
  formats: ['markdown', 'html', 'rawHtml', 'links', 'images', 'summary', 'branding', 'product', 'menu', json, screenshot, changeTracking, question, highlights],
  headers: { 'X-Test': '1' },
  includeTags: ['main'],
  excludeTags: ['nav'],
  onlyMainContent: true,
  timeout: 30000,
  waitFor: 1000,
  mobile: false,
  parsers: [pdf],
  actions,
  location,
  skipTlsVerification: true,
  removeBase64Images: true,
  fastMode: false,
  useMock: 'none',
  blockAds: true,
  proxy: 'auto',
  maxAge: 0,
  minAge: 1,
  storeInCache: false,
  lockdown: true,
  redactPII,
  threatProtection,
  auditMetadata: { username: 'ada' },
  profile: { name: 'shop', saveChanges: false },
  integration: 'webwatch-tests',
  origin: 'js-sdk-tests',
  domainTools: false,
  toolDetail: 'summary',
};
const { toolDetail: _toolDetail, ...pageOptions } = scrapeOptions;
// Crawls, batches, agent and extract jobs deliver their webhooks: to a closed port of loopback, never off this machine.
const HOOK = 'http://127.0.0.1:9/hook';
const webhook: Required<WebhookConfig> = {
  url: HOOK,
  headers: { 'X-Hook': '1' },
  metadata: { run: 'tests' },
  events: ['started', 'page', 'completed', 'failed'],
};

describe('every request the hosted SDK and CLI send, on webwatch serve', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let key: string;
  let client: Firecrawl;
  let model: FakeLlm;
  before(async () => {
    site = await startServer(
      {},
      (_request, response) => void response.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>Shop</h1><p>fine</p><a href="/a">a</a></main>'),
    );
    // A model, so that the formats needing one are taken (lockdown scrapes never reach it).
    model = await startFakeLlm(() => ({ content: '{}' }));
    served = await serveWebwatch({ llm: { baseUrl: model.url, model: 'scripted', timeoutMs: 5000 } });
    key = (await served.keys.create('acme', new Date())).key;
    client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
  });
  after(async () => {
    await served.stop();
    await model.close();
    await site.close();
  });

  /** The status the SDK call ended with: 200, or its error's. */
  const statusOf = (call: Promise<unknown>) =>
    call.then(
      () => 200,
      (error: { status?: number; message: string; details?: unknown }) => {
        if (error.status === undefined) throw error;
        return { status: error.status, message: error.message, details: error.details };
      },
    );
  const assertNot400 = (answer: number | { status: number }, label: string) => {
    assert.notEqual(typeof answer === 'number' ? answer : answer.status, 400, `${label}: ${JSON.stringify(answer)}`);
  };

  it('scrape with every field of ScrapeOptions', async () => {
    // Threat protection is not enabled for the team: 403, once the request has passed.
    const answer = await statusOf(client.scrape(`${site.origin}/never-cached`, scrapeOptions));
    assertNot400(answer, 'scrape');
    // Without it, the scrape goes as far as the cache, which has nothing.
    const { threatProtection: _override, ...withoutOverride } = scrapeOptions;
    const cached = await statusOf(client.scrape(`${site.origin}/never-cached`, withoutOverride));
    assert.ok(typeof cached !== 'number' && cached.status === 404, JSON.stringify(cached));
  });

  it('crawl with every field of CrawlOptions, scrapeOptions included', async () => {
    const crawl: Required<CrawlOptions> = {
      prompt: 'only the shop',
      excludePaths: ['^/admin'],
      includePaths: ['^/'],
      maxDiscoveryDepth: 1,
      sitemap: 'skip',
      ignoreQueryParameters: true,
      deduplicateSimilarURLs: true,
      limit: 1,
      crawlEntireDomain: false,
      allowExternalLinks: false,
      allowSubdomains: false,
      ignoreRobotsTxt: true,
      robotsUserAgent: 'webwatch-tests',
      delay: 0,
      maxConcurrency: 1,
      webhook,
      scrapeOptions: pageOptions,
      regexOnFullURL: false,
      // true would refuse the screenshots and changeTracking of these page options (zero-data-retention.test.ts).
      zeroDataRetention: false,
      integration: 'webwatch-tests',
      origin: 'js-sdk-tests',
    };
    const started = await client.startCrawl(site.url, crawl);
    assert.match(started.id, /^[0-9a-f-]{36}$/);
    assert.equal(await client.cancelCrawl(started.id), true);
    // The webhook as a bare URL, as the SDK's type allows too.
    assertNot400(await statusOf(client.startCrawl(site.url, { limit: 1, webhook: HOOK })), 'crawl with a webhook URL');
  });

  it('batch scrape with every field of BatchScrapeOptions webwatch offers', async () => {
    const batch: Omit<Required<BatchScrapeOptions>, 'appendToId'> = {
      // zeroDataRetention true would refuse the screenshots and changeTracking of these page options (zero-data-retention.test.ts).
      options: pageOptions,
      webhook,
      ignoreInvalidURLs: true,
      maxConcurrency: 2,
      zeroDataRetention: false,
      idempotencyKey: randomUUID(),
      integration: 'webwatch-tests',
      origin: 'js-sdk-tests',
    };
    const started = await client.startBatchScrape([`${site.origin}/never-cached`, 'not a url'], batch);
    assert.match(started.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(started.invalidURLs, ['not a url']);
  });

  it('map with every field of MapOptions', async () => {
    const map: Required<MapOptions> = {
      search: 'shop',
      sitemap: 'skip',
      includeSubdomains: false,
      ignoreQueryParameters: true,
      limit: 10,
      timeout: 10000,
      integration: 'webwatch-tests',
      origin: 'js-sdk-tests',
      location,
      threatProtection,
      auditMetadata: { username: 'ada' },
    };
    const answer = await statusOf(client.map(site.url, map));
    assertNot400(answer, 'map');
  });

  it('search with every field of SearchRequest', async () => {
    const search: Required<Omit<SearchRequest, 'query'>> = {
      domainTools: false,
      toolDetail: 'compact',
      sources: ['web', { type: 'news' }, 'images'],
      categories: [],
      includeDomains: ['example.com'],
      excludeDomains: [],
      limit: 3,
      tbs: 'qdr:d',
      location: 'Germany',
      country: 'DE',
      ignoreInvalidURLs: true,
      timeout: 10000,
      highlights: true,
      scrapeOptions: pageOptions,
      enterprise: ['default'],
      threatProtection,
      integration: 'webwatch-tests',
      origin: 'js-sdk-tests',
    };
    // No search provider is configured: 501, once the request has passed.
    const answer = await statusOf(client.search('webwatch', search));
    assertNot400(answer, 'search');
  });

  it('agent and extract with every field of their requests', async () => {
    const agent: Required<AgentRequest> = {
      urls: [site.url],
      prompt: 'Find the price',
      schema: { type: 'object' },
      integration: 'webwatch-tests',
      origin: 'js-sdk-tests',
      maxCredits: 50,
      strictConstrainToURLs: true,
      model: 'spark-1-mini',
      effort: 'low',
      webhook: { url: HOOK, headers: { 'X-Hook': '1' }, metadata: { run: 'tests' }, events: ['completed', 'failed'] },
      threatProtection,
      auditMetadata: { username: 'ada' },
      threadId: randomUUID(),
      mode: 'extract',
      exchange: { enabled: false, toolkits: [], maxCalls: 1, requireApproval: true, onTermsRequired: 'skip' },
    };
    assertNot400(await statusOf(client.startAgent(agent)), 'agent');
    const extract: Required<ExtractRequest> = {
      urls: [site.url],
      prompt: 'the price',
      schema: { type: 'object' },
      systemPrompt: 'be brief',
      allowExternalLinks: false,
      enableWebSearch: false,
      showSources: true,
      scrapeOptions,
      ignoreInvalidURLs: true,
      integration: 'webwatch-tests',
      origin: 'js-sdk-tests',
      agent: { model: 'FIRE-1' },
      webhook,
      threatProtection,
    };
    assertNot400(await statusOf(client.startExtract(extract)), 'extract');
  });

  it('monitors created and changed with every field of their requests; null removes the webhook and the notification', async () => {
    const schedule: Required<MonitorSchedule> = { cron: '0 9 * * *', text: 'daily at 9:00', timezone: 'Europe/Paris' };
    const email: Required<MonitorEmailNotification> = { enabled: true, recipients: ['ada@example.com'], includeDiffs: true };
    const notification: Required<MonitorNotification> = { email };
    const monitorWebhook: Required<MonitorWebhookConfig> = {
      url: 'https://hooks.example.com/monitor',
      headers: { 'X-Hook': '1' },
      metadata: { team: 'shop' },
      events: ['monitor.page', 'monitor.check.completed'],
    };
    const { scrapeOptions: _nested, ...crawlOptions }: CrawlOptions = {
      prompt: 'only the shop',
      excludePaths: ['^/admin'],
      includePaths: ['^/'],
      maxDiscoveryDepth: 1,
      sitemap: 'skip',
      ignoreQueryParameters: true,
      deduplicateSimilarURLs: true,
      limit: 5,
      crawlEntireDomain: false,
      allowExternalLinks: false,
      allowSubdomains: false,
      ignoreRobotsTxt: false,
      robotsUserAgent: 'webwatch-tests',
      delay: 0,
      maxConcurrency: 1,
      webhook,
      regexOnFullURL: false,
      zeroDataRetention: false,
      integration: 'webwatch-tests',
      origin: 'js-sdk-tests',
    };
    const scrapeTarget: Required<MonitorScrapeTarget> = { id: randomUUID(), type: 'scrape', urls: [site.url], scrapeOptions: pageOptions };
    const crawlTarget: Required<MonitorCrawlTarget> = { id: randomUUID(), type: 'crawl', url: site.url, crawlOptions, scrapeOptions: pageOptions };
    const searchTarget: Required<MonitorSearchTarget> = {
      id: randomUUID(),
      type: 'search',
      queries: ['shop prices'],
      searchWindow: '24h',
      includeDomains: ['example.com'],
      excludeDomains: ['bad.example'],
      maxResults: 10,
    };
    const create: Required<CreateMonitorRequest> = {
      name: 'Every field',
      schedule,
      webhook: monitorWebhook,
      notification,
      targets: [scrapeTarget, crawlTarget, searchTarget],
      retentionDays: 30,
      goal: 'price changes',
      judgeEnabled: true,
    };
    const monitor = await client.createMonitor(create);
    assert.equal(monitor.name, 'Every field');
    assert.equal(monitor.webhook?.url, 'https://hooks.example.com/monitor');

    const update: Required<UpdateMonitorRequest> = {
      name: 'Every field, changed',
      status: 'paused',
      schedule: { cron: '0 10 * * *' },
      webhook: null,
      notification: null,
      targets: [scrapeTarget, searchTarget],
      retentionDays: 7,
      goal: null,
      judgeEnabled: false,
    };
    const changed = await client.updateMonitor(monitor.id, update);
    assert.equal(changed.name, 'Every field, changed');
    assert.equal(changed.status, 'paused');
    assert.equal(changed.webhook ?? null, null, 'null removes the webhook');
    assert.equal(changed.notification ?? null, null, 'null removes the notification');
    assert.equal((await client.getMonitor(monitor.id)).webhook ?? null, null);
    assert.equal(changed.goal, null);
  });

  it('the CLI: scrape, crawl, map and search with their flags', async () => {
    const home = tempDir();
    const firecrawl = (...args: string[]) =>
      exec(process.execPath, [FIRECRAWL_CLI, '--api-url', served.origin, '--api-key', key, ...args], {
        env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home },
        cwd: home,
      }).then(
        ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
      );
    const runs = [
      [
        'scrape',
        `${site.origin}/never-cached`,
        '--format',
        'markdown,links,images,summary',
        '--only-main-content',
        '--wait-for',
        '500',
        '--include-tags',
        'main',
        '--exclude-tags',
        'nav',
        '--max-age',
        '0',
        '--country',
        'DE',
        '--languages',
        'de,en',
        '--profile',
        'shop',
        '--no-save-changes',
        '--lockdown',
        '--redact-pii',
        '--proxy',
        'basic',
        '--actions',
        JSON.stringify([{ type: 'wait', milliseconds: 10 }]),
        '--full-page-screenshot',
      ],
      [
        'crawl',
        site.url,
        '--limit',
        '1',
        '--max-depth',
        '1',
        '--exclude-paths',
        '/admin',
        '--include-paths',
        '/',
        '--sitemap',
        'skip',
        '--ignore-query-parameters',
        '--crawl-entire-domain',
        '--allow-subdomains',
        '--delay',
        '0',
        '--max-concurrency',
        '1',
        '--scrape-options',
        JSON.stringify({ formats: ['markdown'], lockdown: true }),
        '--webhook',
        HOOK,
      ],
      ['map', site.url, '--limit', '5', '--search', 'shop', '--sitemap', 'skip', '--ignore-query-parameters', '--timeout', '10'],
      [
        'search',
        'webwatch',
        '--limit',
        '3',
        '--sources',
        'web,news',
        '--tbs',
        'qdr:d',
        '--location',
        'Germany',
        '--country',
        'DE',
        '--timeout',
        '10000',
        '--ignore-invalid-urls',
        '--highlights',
        '--scrape',
        '--scrape-formats',
        'markdown,links',
      ],
    ];
    for (const args of runs) {
      const { output } = await firecrawl(...args);
      assert.doesNotMatch(output, /Bad Request|unknown field/, `firecrawl ${args[0]}: ${output}`);
    }
  });

  it('what lies outside the interface is refused by name, as it was before requests were closed', async () => {
    const refusals: [Promise<unknown>, string][] = [
      [client.scrape(site.url, { proxy: 'stealth', lockdown: true }), 'proxy'],
      [client.scrape(site.url, { formats: [{ type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] }], lockdown: true }), 'formats[0].type'],
      [client.scrape(site.url, { formats: [{ type: 'query', prompt: 'price?' }], lockdown: true }), 'formats[0].type'],
      [client.scrape(site.url, { parsers: [{ type: 'image' }], lockdown: true }), 'parsers[0].type'],
      [client.scrape(site.url, { threatProtection: { mode: 'zscaler' }, lockdown: true }), 'threatProtection.mode'],
      [client.startBatchScrape([site.url], { appendToId: randomUUID() }), 'appendToId'],
      [client.search('webwatch', { categories: ['github'] }), 'categories'],
    ];
    for (const [call, path] of refusals) {
      const answer = await statusOf(call);
      assert.ok(typeof answer !== 'number' && answer.status === 400, `${path}: ${JSON.stringify(answer)}`);
      assert.ok(
        (answer.details as { path: string }[]).some((detail) => detail.path === path),
        `${path}: ${JSON.stringify(answer.details)}`,
      );
    }
    // The media formats pass the schema; with lockdown (a cache that keeps no media) they are refused, saying why.
    const media = await statusOf(client.scrape(site.url, { formats: ['audio', 'video'], lockdown: true }));
    assert.ok(typeof media !== 'number' && media.status === 400, JSON.stringify(media));
    assert.match(media.message, /the video and audio formats are not available for this request/);
  });
});
