/**
 * webwatch as an MCP server: the tools of a scraper (scrape, map, search, crawl, batch scrape,
 * extract, agent) and of a monitor (validate, apply, list, run a check, read its pages and
 * diffs) over one Backend: the embedded engine, or a remote v2 API. Argument schemas are those
 * of src/spec; the SDK refuses bad arguments before a tool runs. Results are sized for a model
 * (results.ts); long tools report progress and stop when the call is cancelled.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Backend } from '../backend/backend.js';
import type { CheckRecord } from '../contract/checks.js';
import { executePlan, makePlan } from '../core/apply/apply.js';
import { changesOf, checkHistory, fieldHistory } from '../core/history.js';
import { planSummary } from '../core/apply/plan.js';
import { cacheNote, freshByDefault } from '../core/scrape.js';
import type { ValidationReport } from '../core/validate.js';
import { validateUntrusted } from '../core/untrusted-validation.js';
import { UsageError, WebwatchError } from '../errors/webwatch-error.js';
import { EXIT } from '../errors/exit-codes.js';
import { agentRequest, validateAgentRequest } from '../spec/agent.js';
import { extractRequest, validateExtractRequest } from '../spec/extract.js';
import { httpUrl } from '../spec/fields.js';
import { maskHeaderValues } from '../spec/header-masks.js';
import { formatPath, type Problem } from '../spec/issues.js';
import { mapRequestSchema, validateMapRequest } from '../spec/map.js';
import { monitorSchemas, validateCrawlOptions, validateScrapeOptions } from '../spec/schemas.js';
import { searchRequestSchema, validateSearchRequest } from '../spec/search.js';
import { buildScrapeOptionsSchemas, type ScrapeOptions } from '../spec/scrape-options.js';
import { plural } from '../lib/plural.js';
import { Jobs, type Job } from './jobs.js';
import { errorResult, json, ResultPages, textResult } from './results.js';
import { newestCheck } from '../core/monitor-ref.js';

export interface WebwatchMcpOptions {
  backend: Backend;
  version: string;
  /** Shared by every session of one server process (the HTTP transport makes one server a session). */
  jobs: Jobs;
  pages: ResultPages;
  /**
   * Scrapes fetch the page anew unless the call asks for the cache (maxAge, minAge, lockdown), as
   * the command line's do: on the embedded engine an assistant asking for a page wants it as it is
   * now. A remote API keeps its own default (two days on the hosted one).
   */
  freshScrapes?: boolean;
  now?: () => Date;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * `${VAR}` in a definition a model writes is not read from the server's environment: a page that
 * tells the model to put `${WEBWATCH_API_KEY}` in a webhook URL must get an error, not the key.
 */
const NO_ENVIRONMENT = { env: {} };

/**
 * A definition a model sends: at most 5 million characters (the HTTP transport's body is 4 MiB
 * at most), validated on a worker thread (untrusted-validation.ts) so that no document holds up
 * the other sessions.
 */
const DEFINITION_YAML = z.string().min(1).max(5_000_000);

/** How often a running check tells its client that it still runs. */
const CHECK_BEAT_MS = 5000;

/**
 * Sends MCP progress for this call, when the client asked for it with a progress token, in order;
 * `flushed` settles once every notification is sent, so that none comes after the result.
 */
function progressOf(extra: Extra) {
  const token = extra._meta?.progressToken;
  let sent = 0;
  let queue = Promise.resolve();
  const report = (progress: number, total: number | undefined, message: string): Promise<void> => {
    if (token === undefined) return queue;
    sent = Math.max(sent, progress);
    const params = { progressToken: token, progress: sent, ...(total !== undefined && { total }), message };
    queue = queue.then(() => extra.sendNotification({ method: 'notifications/progress', params })).catch(() => undefined);
    return queue;
  };
  // The SDK's client hands a notification to its handler a microtask after it reads it, and a
  // response at once, dropping the call's progress handler: a last notification read in the same
  // chunk as the result is lost. A short pause after the last one keeps them apart.
  const flushed = async () => {
    await queue;
    if (token !== undefined && sent > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  return Object.assign(report, { flushed });
}

const invalid = (what: string, problems: readonly Problem[]) =>
  new UsageError(`invalid ${what}`, { details: problems.map((p) => ({ path: formatPath(p.path), message: p.message })) });

/** Runs a tool, turning every failure into a tool error the model can read. */
const guarded = <A>(run: (args: A, extra: Extra) => Promise<CallToolResult>) => async (args: A, extra: Extra): Promise<CallToolResult> => {
  try {
    return await run(args, extra);
  } catch (error) {
    if (extra.signal.aborted) return errorResult(new WebwatchError('cancelled by the client', { exitCode: EXIT.interrupted, code: 'CANCELLED' }));
    return errorResult(error);
  }
};

/** Changed fields of extracted JSON (`{path: {previous, current}}`), not a markdown diff's chunks (`{files}`). */
const isFieldDiff = (diff: unknown): boolean =>
  diff !== null && typeof diff === 'object' && Object.keys(diff).length > 0
  && Object.values(diff).every((field) => field !== null && typeof field === 'object' && 'previous' in field && 'current' in field);

/** A scraped document as a model reads it: its markdown first, then its other fields. */
function documentText(document: Record<string, unknown>): string {
  const { markdown, ...rest } = document;
  const others = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined && value !== null));
  return [typeof markdown === 'string' ? markdown : '', Object.keys(others).length > 0 ? `---\n${json(others)}` : ''].filter(Boolean).join('\n\n');
}

function jobText(job: Job, offset: number): string {
  const pages = job.pages.slice(offset);
  const head = `${job.kind} ${job.id}: ${job.status}, ${job.pages.length}${job.total === undefined ? '' : ` of ${job.total}`} pages${job.error ? `; ${job.error}` : ''}`;
  const body = pages.map((page, index) => `## ${offset + index + 1}. ${page.url}\n\n${page.error ? `error: ${page.error}` : documentText(page.document ?? {})}`).join('\n\n');
  return `${head}\n\n${body}`.trimEnd();
}

function validationText(report: ValidationReport): string {
  const lines: string[] = [];
  for (const file of report.files) {
    for (const problem of file.errors) lines.push(`${problem.line ?? '?'}:${problem.column ?? '?'}: ${problem.message}`);
    for (const monitor of file.monitors) {
      lines.push(`${monitor.valid ? 'valid' : 'invalid'}: ${monitor.name ?? '(no name)'}`);
      for (const problem of monitor.errors) lines.push(`  ${problem.line ?? '?'}:${problem.column ?? '?'} ${problem.path}: ${problem.message}`);
    }
  }
  return `${report.valid ? 'The definition is valid.' : 'The definition is invalid; nothing was changed.'}\n${lines.join('\n')}`;
}

/** The check asked for, or the latest one (by start) when none is named or "latest". */
async function checkOf(backend: Backend, monitor: string, check: string | undefined): Promise<string> {
  if (check && check !== 'latest') return check;
  const checks = await backend.listChecks(monitor);
  const latest = newestCheck(checks);
  if (!latest) throw new WebwatchError(`monitor "${monitor}" has no check yet`, { exitCode: EXIT.notFound, code: 'NOT_FOUND', suggestion: 'run one with webwatch_monitor_run' });
  return latest.id;
}

const summaryLine = (check: CheckRecord) => {
  const s = check.summary;
  return `check ${check.id} ${check.status}: ${s.changed} changed, ${s.new} new, ${s.removed} removed, ${s.same} same, ${plural(s.error, 'error')} (${plural(s.totalPages, 'page')})`;
};

export function createWebwatchMcp(options: WebwatchMcpOptions): McpServer {
  const { backend, jobs, pages } = options;
  const server = new McpServer({ name: 'webwatch', version: options.version }, {
    instructions: 'webwatch scrapes, crawls, maps and searches the web, runs agent and extract jobs, and keeps monitors that check pages for changes. Results longer than a few thousand words are cut with a note: call webwatch_more to read on.',
  });
  const scrapeShape = buildScrapeOptionsSchemas('file').shape;
  const scrapeOptionsOf = (input: unknown): ScrapeOptions => {
    const validation = validateScrapeOptions(input ?? {}, 'file');
    if (!validation.ok) throw invalid('scrape options', validation.problems);
    return validation.value;
  };
  const readOnly = { readOnlyHint: true, openWorldHint: true } as const;
  const started = (job: Job) => textResult(`${job.kind} ${job.id} started: read its pages with webwatch_${job.kind}_status {"id": "${job.id}"}`);
  /** Waits for a job the call started, stopping it when the call is cancelled; its pages, sized. */
  const waitedFor = async (job: Job, extra: Extra, progress: ReturnType<typeof progressOf>) => {
    const cancel = () => job.stop.abort();
    extra.signal.addEventListener('abort', cancel, { once: true });
    try {
      await job.done;
    } finally {
      extra.signal.removeEventListener('abort', cancel);
    }
    await progress.flushed();
    if (job.status === 'failed') throw new WebwatchError(`the ${job.kind} failed: ${job.error}`);
    return textResult(pages.page(jobText(job, 0)));
  };

  server.registerTool('webwatch_scrape', {
    title: 'Scrape a page',
    description: 'Fetch one URL and return its content as markdown (main content only by default), or other formats (html, links, json with a schema, screenshot...). Use it when you know the page; use webwatch_search to find pages, webwatch_map to list a site\'s URLs, webwatch_crawl for many pages of a site. Fetches the page anew on the embedded engine unless maxAge, minAge or lockdown ask for the cache (a remote API answers from its cache up to its default age); a cached answer says so in its first line, with its age. maxAge: 0 always fetches anew.',
    inputSchema: z.object({ url: httpUrl(), ...scrapeShape }).strict(),
    annotations: readOnly,
  }, guarded(async ({ url, ...input }, extra) => {
    const asked = scrapeOptionsOf(input);
    const scrapeOptions = options.freshScrapes ? freshByDefault(asked) : asked;
    const document = await backend.scrape(url, scrapeOptions, extra.signal);
    // A cached answer says so before anything else, with its age: a price from two days ago is not today's.
    const note = cacheNote([document], (options.now ?? (() => new Date()))(), scrapeOptions, 'maxAge: 0');
    return textResult(pages.page([note, documentText(document as unknown as Record<string, unknown>)].filter(Boolean).join('\n\n')));
  }));

  server.registerTool('webwatch_map', {
    title: 'List the URLs of a site',
    description: 'List the URLs of a site from its sitemaps and pages, without fetching each page: to find the page that answers a question before scraping it. `search` keeps URLs whose address or title has those words, best first.',
    inputSchema: mapRequestSchema(),
    annotations: readOnly,
  }, guarded(async (input, extra) => {
    const validation = validateMapRequest(input);
    if (!validation.ok) throw invalid('map request', validation.problems);
    const { links } = await backend.map(validation.value, extra.signal);
    return textResult(pages.page(`${links.length} URLs\n${links.map((link) => (link.title ? `${link.url}\t${link.title}` : link.url)).join('\n')}`));
  }));

  server.registerTool('webwatch_search', {
    title: 'Search the web',
    description: 'Search the web with the configured provider and return titles, URLs and descriptions; with scrapeOptions, the results\' pages too. Use it when you do not know which page has the answer; then webwatch_scrape the best results.',
    inputSchema: searchRequestSchema(),
    annotations: readOnly,
  }, guarded(async (input, extra) => {
    const validation = validateSearchRequest(input);
    if (!validation.ok) throw invalid('search request', validation.problems);
    const scrapeOptions = validation.value.scrapeOptions === undefined ? undefined : scrapeOptionsOf(validation.value.scrapeOptions);
    const answer = await backend.search(validation.value, scrapeOptions, extra.signal);
    return textResult(pages.page(json(answer)));
  }));

  server.registerTool('webwatch_crawl', {
    title: 'Crawl a site',
    description: 'Scrape the pages of a site from a start URL, following its links (crawlOptions: limit, maxDepth, includePaths, excludePaths...). Reports progress per page and stops when the call is cancelled. Returns the pages as markdown, cut to a part of your context: read the rest with webwatch_crawl_status. background: true returns the job id at once instead of waiting. Prefer webwatch_map then webwatch_scrape when you need a few pages.',
    inputSchema: z.object({
      url: httpUrl(),
      crawlOptions: monitorSchemas('file').crawlOptions.optional(),
      scrapeOptions: z.object(scrapeShape).strict().optional(),
      background: z.boolean().optional().describe('return the job id at once; read the pages with webwatch_crawl_status'),
    }).strict(),
    annotations: readOnly,
  }, guarded(async ({ url, crawlOptions, scrapeOptions, background }, extra) => {
    const crawl = validateCrawlOptions(crawlOptions ?? {}, 'file');
    if (!crawl.ok) throw invalid('crawl options', crawl.problems);
    const scrape = scrapeOptionsOf(scrapeOptions);
    const progress = progressOf(extra);
    const limit = crawl.value.limit;
    const job = jobs.start('crawl', limit, async (job) => {
      await backend.crawl(url, crawl.value, scrape, async (page) => {
        job.pages.push('document' in page ? { url: page.url, document: page.document as unknown as Record<string, unknown> } : { url: page.url, error: page.error instanceof Error ? page.error.message : String(page.error) });
        if (!background) await progress(job.pages.length, limit, `crawl ${job.id}: ${job.pages.length} pages, the last ${page.url}`);
      }, job.stop.signal);
    });
    return background ? started(job) : waitedFor(job, extra, progress);
  }));

  server.registerTool('webwatch_batch_scrape', {
    title: 'Scrape many pages',
    description: 'Scrape a list of URLs with the same options, reporting progress per page. Returns the pages as markdown, cut to a part of your context: read the rest with webwatch_batch_status. background: true returns the job id at once.',
    inputSchema: z.object({
      urls: z.array(httpUrl()).min(1).max(1000),
      options: z.object(scrapeShape).strict().optional(),
      background: z.boolean().optional().describe('return the job id at once; read the pages with webwatch_batch_status'),
    }).strict(),
    annotations: readOnly,
  }, guarded(async ({ urls, options: input, background }, extra) => {
    const scrape = scrapeOptionsOf(input);
    const progress = progressOf(extra);
    const job = jobs.start('batch', urls.length, async (job) => {
      const results = await backend.scrapeMany(urls, scrape, (done) => void (!background && progress(done, urls.length, `batch ${job.id}: ${done} of ${urls.length} pages`)), job.stop.signal);
      job.pages = results.map((result) => ('document' in result && result.document
        ? { url: result.url, document: result.document as unknown as Record<string, unknown> }
        : { url: result.url, error: 'error' in result ? String((result.error as { message?: string })?.message ?? result.error) : 'not scraped' }));
    });
    return background ? started(job) : waitedFor(job, extra, progress);
  }));

  for (const [kind, starter] of [['crawl', 'webwatch_crawl'], ['batch', 'webwatch_batch_scrape']] as const) {
    server.registerTool(`webwatch_${kind}_status`, {
      title: `A ${kind}'s pages so far`,
      description: `The status and pages of a ${kind} started by ${starter}, from page \`offset\` on (0 first).`,
      inputSchema: z.object({ id: z.string().uuid(), offset: z.number().int().min(0).optional() }).strict(),
      annotations: { readOnlyHint: true },
    }, guarded(async ({ id, offset }) => {
      const job = jobs.get(id);
      if (!job || job.kind !== kind) throw new WebwatchError(`no ${kind} ${id} on this server (its jobs are kept while it runs)`, { exitCode: EXIT.notFound, code: 'NOT_FOUND' });
      return textResult(pages.page(jobText(job, offset ?? 0)));
    }));
  }

  server.registerTool('webwatch_extract', {
    title: 'Extract data from pages',
    description: 'Read pages (URLs, or a site with /*) and return data shaped by a JSON Schema or described by a prompt, with a model. Waits for the result, reporting progress.',
    inputSchema: extractRequest(),
    annotations: readOnly,
  }, guarded(async (input, extra) => {
    const validation = validateExtractRequest(input);
    if (!validation.ok) throw invalid('extract request', validation.problems);
    const progress = progressOf(extra);
    const { id } = await backend.startExtract(validation.value.request);
    for (let polls = 1; ; polls++) {
      const status = await backend.getExtract(id);
      if (status.status !== 'processing') return status.status === 'failed' ? errorResult(new WebwatchError(`extract ${id} failed: ${status.error ?? 'no reason given'}`)) : textResult(pages.page(json(status)));
      await progress(polls, undefined, `extract ${id} processing`);
      await delay(1000, extra.signal);
    }
  }));

  server.registerTool('webwatch_agent', {
    title: 'Start an agent job',
    description: 'Start an agent that browses and searches to answer a prompt (optionally shaped by a JSON Schema). Returns its id at once; with wait: true, follows it to the end, reporting each step as progress, and returns its result. Read a job with webwatch_agent_status and its steps with webwatch_agent_trace.',
    inputSchema: z.object({ ...agentRequest().shape, wait: z.boolean().optional().describe('follow the job to its end') }).strict(),
    annotations: { openWorldHint: true },
  }, guarded(async ({ wait, ...input }, extra) => {
    const validation = validateAgentRequest(input);
    if (!validation.ok) throw invalid('agent request', validation.problems);
    const { id } = await backend.startAgent(validation.value);
    if (!wait) return textResult(`agent ${id} started: follow it with webwatch_agent_status {"id": "${id}"} or webwatch_agent_trace`);
    const progress = progressOf(extra);
    let since = 0;
    const report = async (events: readonly unknown[]) => {
      for (const event of events) await progress(++since, undefined, `${(event as { type?: string }).type ?? 'event'}`);
    };
    try {
      for (;;) {
        await report((await backend.agentTrace(id, since, { waitMs: 5000, signal: extra.signal })).events);
        const status = await backend.getAgent(id);
        if (status.status !== 'processing') {
          // The events written as the run ended, after the last read.
          await report((await backend.agentTrace(id, since)).events);
          await progress.flushed();
          return textResult(pages.page(`agent ${id}: ${status.status}\n${json(status)}`));
        }
      }
    } catch (error) {
      if (extra.signal.aborted) await backend.cancelAgent(id).catch(() => undefined);
      throw error;
    }
  }));

  server.registerTool('webwatch_agent_status', {
    title: 'An agent job\'s status',
    description: 'The status of an agent job (processing, completed, failed) and, once completed, its result.',
    inputSchema: z.object({ id: z.string().uuid() }).strict(),
    annotations: { readOnlyHint: true },
  }, guarded(async ({ id }) => textResult(pages.page(json(await backend.getAgent(id))))));

  server.registerTool('webwatch_agent_trace', {
    title: 'An agent job\'s steps',
    description: 'The trace events of an agent job after the first `since` ones (0: from the start): what it searched, read and decided.',
    inputSchema: z.object({ id: z.string().uuid(), since: z.number().int().min(0).optional() }).strict(),
    annotations: { readOnlyHint: true },
  }, guarded(async ({ id, since }) => {
    const { events } = await backend.agentTrace(id, since ?? 0);
    return textResult(pages.page(`${events.length} events after ${since ?? 0}\n${json(events)}`));
  }));

  server.registerTool('webwatch_monitor_validate', {
    title: 'Validate a monitor definition',
    description: 'Check a monitor definition (YAML, as in a webwatch monitors file: one monitor, a list, or several documents) against every rule of the v2 interface, without changing anything. Says each problem with its line, column and field.',
    inputSchema: z.object({ yaml: DEFINITION_YAML }).strict(),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, guarded(async ({ yaml }) => textResult(pages.page(validationText(await validateUntrusted([{ file: 'definition.yaml', text: yaml }], NO_ENVIRONMENT))))));

  server.registerTool('webwatch_monitor_apply', {
    title: 'Create or update monitors from a definition',
    description: 'Make the monitors match a YAML definition, by name, like kubectl apply: creates the new ones and updates the changed ones (dryRun: true only says what would change; prune: true also deletes monitors the definition does not name). Nothing is changed when the definition is invalid.',
    inputSchema: z.object({ yaml: DEFINITION_YAML, dryRun: z.boolean().optional(), prune: z.boolean().optional() }).strict(),
    annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  }, guarded(async ({ yaml, dryRun, prune }) => {
    const report = await validateUntrusted([{ file: 'definition.yaml', text: yaml }], NO_ENVIRONMENT);
    if (!report.valid) return { isError: true, content: [{ type: 'text', text: validationText(report) }] };
    const definitions = report.files.flatMap((file) => file.monitors.map((monitor) => monitor.definition!));
    const plan = await makePlan(backend, definitions, prune ?? false);
    const done = dryRun ? plan : await executePlan(backend, plan);
    const lines = done.map((entry) => `${entry.action} ${entry.name}${entry.id ? ` (${entry.id})` : ''}${entry.changes.length > 0 ? `: ${entry.changes.map((change) => change.path).join(', ')}` : ''}`);
    return textResult(`${dryRun ? 'Plan (nothing changed)' : 'Applied'}: ${json(planSummary(done))}\n${lines.join('\n')}`);
  }));

  server.registerTool('webwatch_monitor_list', {
    title: 'List monitors',
    description: 'The monitors, with their status, schedule, targets and the summary of their last check.',
    inputSchema: z.object({}).strict(),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, guarded(async () => {
    // Header values (cookies, tokens) are secrets: a model reads them masked, as serve answers them.
    const monitors = (await backend.listMonitors()).map(maskHeaderValues);
    return textResult(pages.page(json(monitors.map(({ id, name, status, schedule, targets, lastRunAt, nextRunAt, lastCheckSummary }) => ({ id, name, status, schedule, targets, lastRunAt, nextRunAt, lastCheckSummary })))));
  }));

  server.registerTool('webwatch_monitor_run', {
    title: 'Run a monitor\'s check now',
    description: 'Run a check of a monitor (by id or name) now and wait for it: each page is new, changed, same, removed or an error. Then read the changed pages and their diffs with webwatch_monitor_check.',
    inputSchema: z.object({ monitor: z.string().min(1) }).strict(),
    annotations: { openWorldHint: true },
  }, guarded(async ({ monitor }, extra) => {
    const progress = progressOf(extra);
    await progress(0, undefined, `checking ${monitor}`);
    // A check says nothing until it ends: a beat every few seconds keeps a client that resets its
    // timeout on progress waiting.
    const started = Date.now();
    let beats = 0;
    const beat = setInterval(() => void progress(++beats, undefined, `checking ${monitor}: ${Math.round((Date.now() - started) / 1000)} s`), CHECK_BEAT_MS);
    let check: CheckRecord;
    try {
      check = await backend.runMonitor(monitor, { wait: true });
    } finally {
      clearInterval(beat);
    }
    await progress(beats + 1, beats + 1, summaryLine(check));
    await progress.flushed();
    return textResult(`${summaryLine(check)}\nRead its pages with webwatch_monitor_check {"monitor": ${JSON.stringify(monitor)}, "check": "${check.id}", "status": "changed"}`);
  }));

  server.registerTool('webwatch_monitor_check', {
    title: 'A check\'s pages and diffs',
    description: 'The pages of one check of a monitor (check: its id, or "latest", the default), with the diff of each changed page and the judge\'s verdict; status keeps pages of one status (changed, new, removed, same, error).',
    inputSchema: z.object({ monitor: z.string().min(1), check: z.string().min(1).optional(), status: z.enum(['new', 'changed', 'same', 'removed', 'error']).optional() }).strict(),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, guarded(async ({ monitor, check, status }) => {
    const record = await backend.getCheck(monitor, await checkOf(backend, monitor, check), status);
    const body = record.pages.map((page) => [
      `## ${page.status} ${page.url}${page.statusCode ? ` (HTTP ${page.statusCode})` : ''}`,
      page.judgment ? `judgment: ${json(page.judgment)}` : '',
      page.error ? `error: ${page.error}` : '',
      page.noise ? `why same: ${page.noise.reason}` : '',
      page.diff && 'text' in page.diff && page.diff.text ? `\`\`\`diff\n${page.diff.text}\n\`\`\`` : '',
      // The extracted JSON's changed fields; a markdown diff's `json` is its text parsed into chunks, said once above.
      page.diff && isFieldDiff(page.diff.json) ? `changed fields: ${json(page.diff.json)}` : '',
    ].filter(Boolean).join('\n')).join('\n\n');
    return textResult(pages.page(`${summaryLine(record)}\n\n${body}`.trimEnd()));
  }));

  server.registerTool('webwatch_monitor_history', {
    title: 'A monitor\'s recent checks, or one extracted field over time',
    description: 'The recent finished checks of a monitor, newest first, with their counts of changed, new, removed and failed pages; with field (a path such as price or plans[0].price), that field of the JSON the monitor extracts at each check, oldest first.',
    inputSchema: z.object({ monitor: z.string().min(1), field: z.string().min(1).optional(), limit: z.number().int().min(1).max(1000).optional() }).strict(),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, guarded(async ({ monitor, field, limit }) => {
    if (field) {
      const points = await fieldHistory(backend, monitor, field, limit);
      return textResult(pages.page(points.map((point) => `${point.startedAt ?? ''}  check ${point.checkId}  ${point.url}  ${field} = ${json(point.value)}`).join('\n') || 'no checks yet'));
    }
    const checks = await checkHistory(backend, monitor, limit);
    return textResult(pages.page(checks.map((check) => `${check.startedAt ?? ''}  ${summaryLine(check)}${changesOf(check) > 0 ? '' : ' (nothing new)'}`).join('\n') || 'no checks yet'));
  }));

  server.registerTool('webwatch_more', {
    title: 'The rest of a long result',
    description: 'The part of a result that was cut, from `offset`, as the note at the end of the result said.',
    inputSchema: z.object({ id: z.string().uuid(), offset: z.number().int().min(0) }).strict(),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, guarded(async ({ id, offset }) => {
    const text = pages.more(id, offset);
    if (text === undefined) throw new WebwatchError(`result ${id} is no longer kept (the server keeps the latest 50)`, { exitCode: EXIT.notFound, code: 'NOT_FOUND', suggestion: 'call the tool that gave it again' });
    return textResult(text);
  }));

  return server;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
