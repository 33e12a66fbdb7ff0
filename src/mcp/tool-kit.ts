/**
 * What every tool of webwatch's MCP server is made with: the backend and the server's jobs and
 * result pages, the scrape options' schema, and the helpers each tool runs through: errors as
 * tool errors the model reads, progress in order, results sized for a model.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { EXIT } from '../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../errors/webwatch-error.js';
import { formatPath, type Problem } from '../spec/issues.js';
import { buildScrapeOptionsSchemas, type ScrapeOptions } from '../spec/scrape-options.js';
import { validateScrapeOptions } from '../spec/schemas.js';
import type { Backend } from '../services/interfaces.js';
import type { Job, Jobs } from './jobs.js';
import { errorResult, json, textResult, type ResultPages } from './results.js';

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
  /** Whether the tools may read files of this machine (webwatch_parse): on stdio, for the user who started it; never over HTTP. */
  localFiles?: boolean;
  now?: () => Date;
}

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolKit {
  readonly server: McpServer;
  readonly options: WebwatchMcpOptions;
  readonly backend: Backend;
  readonly jobs: Jobs;
  readonly pages: ResultPages;
  /** The scrape options as a tool's argument fields. */
  readonly scrapeShape: ReturnType<typeof buildScrapeOptionsSchemas>['shape'];
  /** Scrape options of a call, validated as a file's are; invalid ones are the tool's error. */
  scrapeOptionsOf(input: unknown): ScrapeOptions;
  /** Waits for a job the call started, stopping it when the call is cancelled; its pages, sized. */
  waitedFor(job: Job, extra: Extra, progress: ReturnType<typeof progressOf>): Promise<CallToolResult>;
}

/** Tools that read the web and change nothing. */
export const READ_ONLY = { readOnlyHint: true, openWorldHint: true } as const;

export function toolKit(server: McpServer, options: WebwatchMcpOptions): ToolKit {
  const { pages } = options;
  return {
    server,
    options,
    backend: options.backend,
    jobs: options.jobs,
    pages,
    scrapeShape: buildScrapeOptionsSchemas('file').shape,
    scrapeOptionsOf: (input) => {
      const validation = validateScrapeOptions(input ?? {}, 'file');
      if (!validation.ok) throw invalid('scrape options', validation.problems);
      return validation.value;
    },
    waitedFor: async (job, extra, progress) => {
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
    },
  };
}

/** A job started in the background: how to read it. */
export const started = (job: Job) => textResult(`${job.kind} ${job.id} started: read its pages with webwatch_${job.kind}_status {"id": "${job.id}"}`);

/**
 * Sends MCP progress for this call, when the client asked for it with a progress token, in order;
 * `flushed` settles once every notification is sent, so that none comes after the result.
 */
export function progressOf(extra: Extra) {
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

export const invalid = (what: string, problems: readonly Problem[]) =>
  new UsageError(`invalid ${what}`, { details: problems.map((p) => ({ path: formatPath(p.path), message: p.message })) });

/** Runs a tool, turning every failure into a tool error the model can read. */
export const guarded =
  <A>(run: (args: A, extra: Extra) => Promise<CallToolResult>) =>
  async (args: A, extra: Extra): Promise<CallToolResult> => {
    try {
      return await run(args, extra);
    } catch (error) {
      if (extra.signal.aborted) return errorResult(new WebwatchError('cancelled by the client', { exitCode: EXIT.interrupted, code: 'CANCELLED' }));
      return errorResult(error);
    }
  };

/** A scraped document as a model reads it: its markdown first, then its other fields. */
export function documentText(document: Record<string, unknown>): string {
  const { markdown, ...rest } = document;
  const others = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined && value !== null));
  return [typeof markdown === 'string' ? markdown : '', Object.keys(others).length > 0 ? `---\n${json(others)}` : ''].filter(Boolean).join('\n\n');
}

export function jobText(job: Job, offset: number): string {
  const pages = job.pages.slice(offset);
  const head = `${job.kind} ${job.id}: ${job.status}, ${job.pages.length}${job.total === undefined ? '' : ` of ${job.total}`} pages${job.error ? `; ${job.error}` : ''}`;
  const body = pages
    .map((page, index) => `## ${offset + index + 1}. ${page.url}\n\n${page.error ? `error: ${page.error}` : documentText(page.document ?? {})}`)
    .join('\n\n');
  return `${head}\n\n${body}`.trimEnd();
}

/** Waits `ms`, or rejects when the call is cancelled. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
