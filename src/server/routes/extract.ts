/**
 * The extract routes of `webwatch serve` (`POST /v2/extract`, `GET /v2/extract/{id}`, in the
 * shapes of the hosted SDK's `startExtract` and `getExtractStatus`) and the crawl params
 * preview (`POST /v2/crawl/params-preview`). Extract jobs are agent jobs of their own kind:
 * queued for a worker, one of the key's concurrent jobs, its team's alone, announced to their
 * webhook as crawls are; without a model they are refused as agent jobs are.
 */
import type { FastifyPluginAsync } from 'fastify';
import { MODEL_NOT_CONFIGURED_CODE } from '../../engine/agent/agent-jobs.js';
import { extractStatusDocument } from '../../engine/agent/wire.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { validateCrawlPreviewRequest } from '../../spec/crawl-preview.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { SITE_WILDCARD, validateExtractRequest } from '../../spec/extract.js';
import type { CrawlPreviewDocument, ExtractStarted } from '../../contract/extract.js';
import { invalid } from '../http.js';
import { refusePrivateHosts } from '../../engine/fetch/target-hosts.js';
import type { RouteDeps } from './deps.js';

export const extractRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.post('/v2/extract', async (request, reply) => {
    const validation = validateExtractRequest(request.body ?? {});
    if (!validation.ok) throw invalid(validation.problems);
    const { request: input, warnings, webhook } = validation.value;
    // The webhook first, as for crawls: a refusal names its URL (deliveries apply the rule again, at connect time).
    if (deps.checkUrl && webhook) await refusePrivateHosts([new URL(webhook.url)], deps.checkUrl);
    // Refused here as the scrape and crawl routes refuse their targets; each fetch is judged again as it is made.
    if (deps.checkUrl) for (const url of input.urls) await deps.checkUrl(new URL(url.endsWith(SITE_WILDCARD) ? url.slice(0, -1) : url));
    if (await app.limits.outOfCredits(request, reply)) return reply;
    let job;
    try {
      job = await (await deps.servicesOf(request).agents.jobs()).enqueueExtract(input, deps.work.context(request), webhook);
    } catch (error) {
      if (error instanceof WebwatchError && error.code === MODEL_NOT_CONFIGURED_CODE) {
        // The same refusal as agent jobs': extract runs on their machinery and their model.
        throw new WebwatchError(ERROR_MESSAGES.agentPassthroughFailed, { status: 500, code: error.code, details: { reason: error.message } });
      }
      throw error;
    }
    await deps.work.queued();
    const started: ExtractStarted = { success: true, id: job.id, ...(warnings.length > 0 && { warning: warnings.join('; ') }) };
    return started;
  });

  app.get<{ Params: { id: string } }>('/v2/extract/:id', async (request) =>
    extractStatusDocument(await (await deps.servicesOf(request).agents.jobs()).getExtract(request.params.id)),
  );

  app.post('/v2/crawl/params-preview', async (request, reply) => {
    const validation = validateCrawlPreviewRequest(request.body ?? {});
    if (!validation.ok) throw invalid(validation.problems);
    const { url, prompt } = validation.value;
    // A model's answer, not a page: it takes none of the team's page slots.
    if (await app.limits.outOfCredits(request, reply)) return reply;
    const { data, warning } = await deps.servicesOf(request).crawl.paramsPreview(url, prompt);
    const answer: CrawlPreviewDocument = { success: true, data, ...(warning && { warning }) };
    return answer;
  });
};
