/**
 * The crawl routes of `webwatch serve`: a crawl is queued for a worker (work/worker.ts), which
 * writes each page to the store (crawl-jobs.ts) as it is crawled; status, cancel and errors are
 * jobs.ts's.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TeamCrawlService } from '../../services/crawl.js';
import { crawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { MODEL_NOT_CONFIGURED_CODE } from '../../engine/extract/needs.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { normalizeJobWebhook, type JobWebhookInput } from '../../spec/job-webhook.js';
import { validateCrawlOptions, validateScrapeOptions, type CrawlOptions } from '../../spec/schemas.js';
import { retainsNothing, validateZeroDataRetention, zeroDataRetentionProblems } from '../../spec/zero-data-retention.js';
import { asObject, invalid, targetUrl } from '../http.js';
import { refusePrivateHosts } from '../../engine/fetch/target-hosts.js';
import { startOnce } from '../idempotency.js';
import type { RouteDeps } from './deps.js';
import { jobRoutes } from './jobs.js';

export const crawlRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const { now, checkUrl, work } = deps;
  const { outOfCredits } = app.limits;
  const crawls = crawlJobStore(deps.db);

  // The team's running crawls, first started first; `ongoing` is the hosted API's other name for the list.
  const ongoing = async (request: FastifyRequest) => ({
    success: true,
    crawls: (await crawls.active(request.team, now())).map((job) => ({
      id: job.id,
      teamId: job.team,
      url: job.url,
      created_at: new Date(job.createdAt).toISOString(),
      options: job.options,
    })),
  });
  app.get('/v2/crawl/active', ongoing);
  app.get('/v2/crawl/ongoing', ongoing);

  jobRoutes(app, deps, crawls, '/v2/crawl', 'crawl');

  app.post('/v2/crawl', async (request, reply) => {
    const { url, scrapeOptions, zeroDataRetention: asked, ...rest } = asObject(request.body);
    const target = targetUrl(url);
    const crawlOptions = validateCrawlOptions(rest, 'wire');
    if (!crawlOptions.ok) throw invalid(crawlOptions.problems);
    // Kept with the job apart from its options, which the active list shows: its headers may hold secrets.
    const { webhook: given, ...explicit } = crawlOptions.value as CrawlOptions & { webhook?: JobWebhookInput | null; prompt?: string | null };
    const webhook = given ? normalizeJobWebhook(given) : undefined;
    const pageOptions = validateScrapeOptions(scrapeOptions ?? {}, 'wire');
    if (!pageOptions.ok) throw invalid(pageOptions.problems.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
    // The webhook first: a refusal names its URL (deliveries apply the rule again, at connect time).
    if (checkUrl && webhook) await refusePrivateHosts([new URL(webhook.url)], checkUrl);
    const retention = validateZeroDataRetention(asked);
    if (!retention.ok) throw invalid(retention.problems);
    const zeroDataRetention = retention.value;
    const refused = zeroDataRetentionProblems(zeroDataRetention, pageOptions.value);
    if (refused.length > 0) throw invalid(refused.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
    if (checkUrl) await checkUrl(target);
    const { options, warning } = await withPromptOptions(deps.servicesOf(request).crawl, target.href, explicit);
    // Its pages wait for the team's page slots (page-slots.ts): a crawl is queued, never refused for concurrency.
    if (await outOfCredits(request, reply)) return reply;
    await crawls.purgeExpired(now());
    // Queued for whichever worker has room (this process too, unless it only serves the API).
    // One job per idempotency key of the team (the hosted clients' x-idempotency-key).
    const job = await startOnce(deps.db, now, request, reply, () =>
      crawls.enqueue(
        request.team,
        target.href,
        { ...options, scrapeOptions: pageOptions.value, ...(zeroDataRetention && { zeroDataRetention: true }) },
        now(),
        work.context(request),
        0,
        webhook,
        retainsNothing(zeroDataRetention, pageOptions.value),
      ),
    );
    if (!job) return reply;
    await work.queued();
    return { success: true, id: job.id, url: `${request.protocol}://${request.host}/v2/crawl/${job.id}`, ...(warning && { warning }) };
  });
};

/**
 * A crawl's `prompt`, as the hosted API reads it: the configured model turns it into crawl options
 * (the params preview's), and the options the request gives win over them. Without a model the
 * crawl runs on its own options, and the answer's warning says the prompt was not used.
 */
async function withPromptOptions(
  crawls: TeamCrawlService,
  url: string,
  explicit: CrawlOptions & { prompt?: string | null },
): Promise<{ options: CrawlOptions; warning?: string }> {
  const prompt = explicit.prompt?.trim();
  if (!prompt) return { options: explicit };
  try {
    const {
      data: { url: _url, ...derived },
      warning,
    } = await crawls.paramsPreview(url, prompt);
    return { options: { ...(derived as CrawlOptions), ...explicit }, ...(warning && { warning: `from the prompt: ${warning}` }) };
  } catch (error) {
    if (!(error instanceof WebwatchError) || error.code !== MODEL_NOT_CONFIGURED_CODE) throw error;
    return { options: explicit, warning: 'prompt was not used: no model is configured (llm in the config)' };
  }
}
