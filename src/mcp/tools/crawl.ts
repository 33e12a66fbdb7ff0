/** The MCP tools of many pages: webwatch_crawl and webwatch_batch_scrape, run as jobs of this server, and their status tools. */
import { z } from 'zod';
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { httpUrl } from '../../spec/fields.js';
import { monitorSchemas, validateCrawlOptions } from '../../spec/schemas.js';
import { textResult } from '../results.js';
import { guarded, invalid, jobText, progressOf, READ_ONLY as readOnly, started, type ToolKit } from '../tool-kit.js';

/** Crawl a site or scrape a list of pages, waiting or in the background; read a job's pages so far. */
export function registerCrawlTools(kit: ToolKit): void {
  const { server, backend, jobs, pages, scrapeShape, scrapeOptionsOf, waitedFor } = kit;
  server.registerTool(
    'webwatch_crawl',
    {
      title: 'Crawl a site',
      description:
        'Scrape the pages of a site from a start URL, following its links (crawlOptions: limit, maxDepth, includePaths, excludePaths...). Reports progress per page and stops when the call is cancelled. Returns the pages as markdown, cut to a part of your context: read the rest with webwatch_crawl_status. background: true returns the job id at once instead of waiting. Prefer webwatch_map then webwatch_scrape when you need a few pages.',
      inputSchema: z
        .object({
          url: httpUrl(),
          crawlOptions: monitorSchemas('file').crawlOptions.optional(),
          scrapeOptions: z.object(scrapeShape).strict().optional(),
          background: z.boolean().optional().describe('return the job id at once; read the pages with webwatch_crawl_status'),
        })
        .strict(),
      annotations: readOnly,
    },
    guarded(async ({ url, crawlOptions, scrapeOptions, background }, extra) => {
      const crawl = validateCrawlOptions(crawlOptions ?? {}, 'file');
      if (!crawl.ok) throw invalid('crawl options', crawl.problems);
      const scrape = scrapeOptionsOf(scrapeOptions);
      const progress = progressOf(extra);
      const limit = crawl.value.limit;
      const job = jobs.start('crawl', limit, async (job) => {
        await backend.crawl.run(
          url,
          crawl.value,
          scrape,
          async (page) => {
            job.pages.push(
              'document' in page
                ? { url: page.url, document: page.document as unknown as Record<string, unknown> }
                : { url: page.url, error: page.error instanceof Error ? page.error.message : String(page.error) },
            );
            if (!background) await progress(job.pages.length, limit, `crawl ${job.id}: ${job.pages.length} pages, the last ${page.url}`);
          },
          job.stop.signal,
        );
      });
      return background ? started(job) : waitedFor(job, extra, progress);
    }),
  );

  server.registerTool(
    'webwatch_batch_scrape',
    {
      title: 'Scrape many pages',
      description:
        'Scrape a list of URLs with the same options, reporting progress per page. Returns the pages as markdown, cut to a part of your context: read the rest with webwatch_batch_status. background: true returns the job id at once.',
      inputSchema: z
        .object({
          urls: z.array(httpUrl()).min(1).max(1000),
          options: z.object(scrapeShape).strict().optional(),
          background: z.boolean().optional().describe('return the job id at once; read the pages with webwatch_batch_status'),
        })
        .strict(),
      annotations: readOnly,
    },
    guarded(async ({ urls, options: input, background }, extra) => {
      const scrape = scrapeOptionsOf(input);
      const progress = progressOf(extra);
      const job = jobs.start('batch', urls.length, async (job) => {
        const results = await backend.scrape.many(
          urls,
          scrape,
          (done) => void (!background && progress(done, urls.length, `batch ${job.id}: ${done} of ${urls.length} pages`)),
          job.stop.signal,
        );
        job.pages = results.map((result) =>
          'document' in result && result.document
            ? { url: result.url, document: result.document as unknown as Record<string, unknown> }
            : { url: result.url, error: 'error' in result ? String((result.error as { message?: string })?.message ?? result.error) : 'not scraped' },
        );
      });
      return background ? started(job) : waitedFor(job, extra, progress);
    }),
  );

  for (const [kind, starter] of [
    ['crawl', 'webwatch_crawl'],
    ['batch', 'webwatch_batch_scrape'],
  ] as const) {
    server.registerTool(
      `webwatch_${kind}_status`,
      {
        title: `A ${kind}'s pages so far`,
        description: `The status and pages of a ${kind} started by ${starter}, from page \`offset\` on (0 first).`,
        inputSchema: z.object({ id: z.string().uuid(), offset: z.number().int().min(0).optional() }).strict(),
        annotations: { readOnlyHint: true },
      },
      guarded(async ({ id, offset }) => {
        const job = jobs.get(id);
        if (!job || job.kind !== kind)
          throw new WebwatchError(`no ${kind} ${id} on this server (its jobs are kept while it runs)`, { exitCode: EXIT.notFound, code: 'NOT_FOUND' });
        return textResult(pages.page(jobText(job, offset ?? 0)));
      }),
    );
  }
}
