/** `crawl`: flags -> crawl options -> backend; pages stream out as rows, JSON lines or files. */
import { z } from 'zod';
import type { CrawlPage } from '../../contract/crawl.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { formatPath } from '../../spec/issues.js';
import { validateCrawlOptions, type CrawlOptions } from '../../spec/schemas.js';
import { startProgress } from '../../ui/progress.js';
import { asWebwatchError } from '../../ui/render-error.js';
import { openBackend, withBackend } from '../backend.js';
import { interruptible } from '../interrupt.js';
import { renderRows } from '../../ui/table.js';
import { styledLine } from '../../ui/terminal-text.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { scrapeFlagsSchema, scrapeOptionsFromFlags } from '../scrape-options-flags.js';
import { outputDirectory, pageFiles, slugNamer, writePageFiles } from '../page-files.js';
import { formatNames } from '../scrape-output.js';
import { plural } from '../../lib/plural.js';

const flagsSchema = scrapeFlagsSchema.extend({
  limit: z.coerce.number().int().optional(),
  maxDepth: z.coerce.number().int().optional(),
  includePath: z.array(z.string()).optional(),
  excludePath: z.array(z.string()).optional(),
  regexOnFullUrl: z.boolean().optional(),
  allowSubdomains: z.boolean().optional(),
  allowExternalLinks: z.boolean().optional(),
  crawlEntireDomain: z.boolean().optional(),
  ignoreRobotsTxt: z.boolean().optional(),
  ignoreQueryParameters: z.boolean().optional(),
  sitemap: z.enum(['include', 'skip', 'only']).optional(),
  delay: z.coerce.number().optional(),
  maxConcurrency: z.coerce.number().int().optional(),
  output: z.string().optional(),
  detach: z.boolean().optional(),
});

function crawlOptionsOf(flags: z.infer<typeof flagsSchema>): CrawlOptions {
  const raw = {
    limit: flags.limit,
    maxDepth: flags.maxDepth,
    includePaths: flags.includePath,
    excludePaths: flags.excludePath,
    regexOnFullURL: flags.regexOnFullUrl,
    allowSubdomains: flags.allowSubdomains,
    allowExternalLinks: flags.allowExternalLinks,
    crawlEntireDomain: flags.crawlEntireDomain,
    ignoreRobotsTxt: flags.ignoreRobotsTxt,
    ignoreQueryParameters: flags.ignoreQueryParameters,
    sitemap: flags.sitemap,
    delay: flags.delay,
    maxConcurrency: flags.maxConcurrency,
  };
  const result = validateCrawlOptions(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)), 'file');
  if (!result.ok) {
    const lines = result.problems.map((p) => `${formatPath(p.path)}: ${p.message}`);
    throw new UsageError(`invalid crawl options: ${lines.join('; ')}`, { details: lines });
  }
  return result.value;
}

/** A crawl's pages as rows: tab-separated as they come when piped, one aligned table on a terminal. */
class PageRows {
  private readonly held: string[][] = [];
  constructor(private readonly output: CommandContext['output']) {}
  add(row: string[]): void {
    if (this.output.tty) this.held.push(row);
    else this.output.data(row.join('\t'));
  }
  async flush(): Promise<void> {
    if (this.held.length > 0) this.output.data(await renderRows(this.output, ['url', 'code', 'title'], this.held.splice(0)));
  }
}

export async function runCrawl(context: CommandContext, url: string, rawFlags: unknown): Promise<ExitCode> {
  const { io, output } = context;
  const flags = parseFlags(flagsSchema, rawFlags);
  const crawlOptions = crawlOptionsOf(flags);
  const scrapeOptions = await scrapeOptionsFromFlags(flags, io.env);
  const backend = await openBackend(context, 'crawling');
  if (flags.detach) {
    try {
      const started = await backend.crawl.start(url, crawlOptions, scrapeOptions);
      if (output.json) output.jsonDocument(started);
      else {
        output.data(started.id);
        output.info(`crawl started; follow it with: webwatch crawl status ${started.id}`);
      }
      return EXIT.ok;
    } finally {
      await backend.close();
    }
  }
  if (flags.output) await outputDirectory(flags.output);
  const slugFor = slugNamer();
  const formats = formatNames(scrapeOptions);
  let filesWritten = 0;

  const progress = await startProgress(io, output, `crawling ${url}`);
  // On a terminal the pages are one aligned table once the crawl ends (the progress line counts
  // them meanwhile); piped, each is a tab-separated row as soon as it is crawled.
  const rows = new PageRows(output);
  let done = 0;
  let httpErrorCount = 0;
  const httpErrors = new Map<number, number>();
  const onPage = async (page: CrawlPage) => {
    done++;
    progress.update(`crawling ${url}: ${done} page${done === 1 ? '' : 's'}`);
    if ('error' in page) {
      const error = asWebwatchError(page.error);
      if (output.json && !flags.output)
        io.stdout.write(`${JSON.stringify({ success: false, url: page.url, error: error.message, ...(error.code && { code: error.code }) })}\n`);
      else output.problem(styledLine`${output.messageStyle.red('error:')} ${page.url}: ${error.message}`);
      return;
    }
    const status = page.document.metadata.statusCode;
    if (status >= 400) {
      httpErrorCount++;
      httpErrors.set(status, (httpErrors.get(status) ?? 0) + 1);
    }
    if (flags.output) {
      // Pages finish concurrently: count after the await, not across it.
      const written = await writePageFiles(flags.output, pageFiles(slugFor(page.url), page.document, formats, output.json));
      filesWritten += written.length;
    }
    if (output.json && !flags.output) io.stdout.write(`${JSON.stringify({ success: true, data: page.document })}\n`);
    else if (!output.json) rows.add([page.url, String(page.document.metadata.statusCode), page.document.metadata.title ?? '']);
  };
  let summary;
  const interrupt = interruptible();
  try {
    summary = await backend.crawl.run(url, crawlOptions, scrapeOptions, onPage, interrupt.signal);
  } catch (error) {
    const cancelled = error instanceof WebwatchError && error.code === 'CRAWL_CANCELLED';
    if (interrupt.signal.aborted && !cancelled) throw new WebwatchError('interrupted: the crawl stopped', { exitCode: EXIT.interrupted });
    throw error;
  } finally {
    interrupt.dispose();
    progress.stop();
    await rows.flush();
    await backend.close();
  }
  const robots = summary.skippedByRobots > 0 ? `, ${summary.skippedByRobots} skipped by robots.txt` : '';
  const files = flags.output ? `; wrote ${filesWritten} file${filesWritten === 1 ? '' : 's'} into ${flags.output}` : '';
  // A page that answered 404 or 500 is listed with its status, but it is an error, not a page crawled.
  const answered =
    httpErrors.size > 0
      ? ` (${[...httpErrors]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${count} HTTP ${status}`)
          .join(', ')})`
      : '';
  const errors = summary.errors + httpErrorCount;
  const crawled = summary.pages - httpErrorCount;
  output.info(`${plural(crawled, 'page')} crawled, ${plural(errors, 'error')}${answered}${robots}${files}`);
  return crawled === 0 && errors > 0 ? EXIT.failure : EXIT.ok;
}

/** `crawl status|cancel|errors <id>`: a crawl job of the API. */
const jobFlags = z.object({ documents: z.boolean().optional() });

export async function runCrawlJob(context: CommandContext, action: 'status' | 'cancel' | 'errors', id: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(jobFlags, rawFlags);
  const { io, output } = context;
  return withBackend(context, 'reading the crawl', async (backend) => {
    if (action === 'cancel') {
      await backend.crawl.cancel(id);
      if (output.json) output.jsonDocument({ id, status: 'cancelled' });
      else output.info(`crawl ${id} cancelled`);
      return EXIT.ok;
    }
    if (action === 'errors') {
      const { errors, robotsBlocked } = await backend.crawl.errors(id);
      if (output.json) return (output.jsonDocument({ errors, robotsBlocked }), EXIT.ok);
      if (errors.length > 0)
        output.data(
          await renderRows(
            output,
            ['url', 'code', 'error'],
            errors.map((e) => [e.url, e.code ?? '', e.error]),
            { whole: { column: 2, key: 0, title: 'errors' } },
          ),
        );
      for (const url of robotsBlocked) output.data(`${url}\trobots.txt`);
      if (errors.length === 0 && robotsBlocked.length === 0) output.info('no errors');
      return EXIT.ok;
    }
    let status = await backend.crawl.status(id);
    const { data: first, ...summary } = status;
    if (!flags.documents) {
      if (output.json) output.jsonDocument({ ...summary, next: undefined });
      else {
        output.data(
          `crawl ${id}: ${summary.status}, ${summary.completed} of ${plural(summary.total, 'page')}${summary.creditsUsed !== undefined ? `, ${plural(summary.creditsUsed, 'credit')}` : ''}`,
        );
        if (summary.error) output.data(`error: ${summary.error}`);
        if (summary.expiresAt) output.info(`results kept until ${summary.expiresAt}`);
      }
      return summary.status === 'failed' ? EXIT.failure : EXIT.ok;
    }
    // Every document, page after page of the API's answers.
    let documents = first;
    let seen = 0;
    const rows = new PageRows(output);
    for (;;) {
      for (const document of documents) {
        if (output.json) io.stdout.write(`${JSON.stringify({ success: true, data: document })}\n`);
        else rows.add([document.metadata?.url ?? '', String(document.metadata?.statusCode ?? ''), document.metadata?.title ?? '']);
      }
      seen += documents.length;
      if (!status.next || documents.length === 0) break;
      status = await backend.crawl.status(id, seen);
      documents = status.data;
    }
    await rows.flush();
    output.info(`crawl ${id}: ${summary.status}, ${summary.completed} of ${plural(summary.total, 'page')}`);
    return summary.status === 'failed' ? EXIT.failure : EXIT.ok;
  });
}

/** `crawl list`: the running crawl jobs of the key's team. */
export async function runCrawlList(context: CommandContext): Promise<ExitCode> {
  return withBackend(context, 'listing crawls', async (backend) => {
    const crawls = await backend.crawl.active();
    const { output } = context;
    if (output.json) output.jsonDocument(crawls);
    else if (crawls.length > 0)
      output.data(
        await renderRows(
          output,
          ['id', 'url'],
          crawls.map((c) => [c.id, c.url]),
        ),
      );
    else output.info('no running crawls');
    return EXIT.ok;
  });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { crawl: flagsSchema, 'crawl status': jobFlags };
