/** `crawl`: flags -> crawl options -> backend; pages stream out as rows, JSON lines or files. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { CrawlPage } from '../../engine/crawl/crawl.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { formatPath } from '../../spec/issues.js';
import { validateCrawlOptions, type CrawlOptions } from '../../spec/schemas.js';
import { startProgress } from '../../ui/progress.js';
import { asWebwatchError } from '../../ui/render-error.js';
import { backendFor } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { scrapeFlagsSchema, scrapeOptionsFromFlags } from '../scrape-options-flags.js';
import { fileNameFor } from './scrape.run.js';

const flagsSchema = scrapeFlagsSchema.extend({
  limit: z.coerce.number().int().optional(),
  maxDepth: z.coerce.number().int().optional(),
  includePath: z.array(z.string()).optional(),
  excludePath: z.array(z.string()).optional(),
  allowSubdomains: z.boolean().optional(),
  allowExternalLinks: z.boolean().optional(),
  crawlEntireDomain: z.boolean().optional(),
  ignoreRobotsTxt: z.boolean().optional(),
  ignoreQueryParameters: z.boolean().optional(),
  sitemap: z.enum(['include', 'skip', 'only']).optional(),
  delay: z.coerce.number().optional(),
  maxConcurrency: z.coerce.number().int().optional(),
  output: z.string().optional(),
});

function crawlOptionsOf(flags: z.infer<typeof flagsSchema>): CrawlOptions {
  const raw = {
    limit: flags.limit,
    maxDepth: flags.maxDepth,
    includePaths: flags.includePath,
    excludePaths: flags.excludePath,
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

export async function runCrawl(context: CommandContext, url: string, rawFlags: unknown): Promise<ExitCode> {
  const { io, output } = context;
  const flags = parseFlags(flagsSchema, rawFlags);
  const crawlOptions = crawlOptionsOf(flags);
  const scrapeOptions = await scrapeOptionsFromFlags(flags, io.env);
  const backend = await backendFor(context, 'crawling');
  if (flags.output) await mkdir(flags.output, { recursive: true });

  const progress = await startProgress(io, output, `crawling ${url}`);
  let done = 0;
  const onPage = async (page: CrawlPage) => {
    done++;
    progress.update(`crawling ${url}: ${done} page${done === 1 ? '' : 's'}`);
    if ('error' in page) {
      const error = asWebwatchError(page.error);
      if (output.json && !flags.output) io.stdout.write(`${JSON.stringify({ success: false, url: page.url, error: error.message, ...(error.code && { code: error.code }) })}\n`);
      else output.problem(`error: ${page.url}: ${error.message}`);
      return;
    }
    if (flags.output) {
      const body = output.json ? `${JSON.stringify({ success: true, data: page.document }, null, 2)}\n` : `${page.document.markdown ?? ''}\n`;
      await writeFile(join(flags.output, fileNameFor(page.url, output.json ? 'json' : 'md')), body);
    }
    if (output.json && !flags.output) io.stdout.write(`${JSON.stringify({ success: true, data: page.document })}\n`);
    else if (!output.json) output.data([page.url, String(page.document.metadata.statusCode), page.document.metadata.title ?? ''].join('\t'));
  };
  let summary;
  try {
    summary = await backend.crawl(url, crawlOptions, scrapeOptions, onPage);
  } finally {
    progress.stop();
    await backend.close();
  }
  const robots = summary.skippedByRobots > 0 ? `, ${summary.skippedByRobots} skipped by robots.txt` : '';
  output.info(`${summary.pages} page${summary.pages === 1 ? '' : 's'} crawled, ${summary.errors} error${summary.errors === 1 ? '' : 's'}${robots}`);
  return summary.pages === 0 && summary.errors > 0 ? EXIT.failure : EXIT.ok;
}
