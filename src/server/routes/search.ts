/** POST /v2/search: a web search over the server's configured provider, as one of the key's jobs. */
import type { FastifyPluginAsync } from 'fastify';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { validateSearchRequest } from '../../spec/search.js';
import { asObject, invalid } from '../http.js';
import type { RouteDeps } from './deps.js';

export const EXCHANGE_NOT_ENABLED = 'Exchange is not enabled for this team.';

const asksForExchange = (body: Record<string, unknown>) =>
  body.domainTools === true ||
  (Array.isArray(body.sources) &&
    body.sources.some((source) => (typeof source === 'string' ? source : (source as { type?: unknown } | null)?.type) === 'alexandria'));

export const searchRoutes: FastifyPluginAsync<RouteDeps> = async (app, { servicesOf }) => {
  const { limited } = app.limits;
  app.post('/v2/search', async (request, reply) => {
    const body = asObject(request.body);
    // Provider tools ("alexandria" results, domainTools) are the hosted service's, for the teams
    // it enables: every team of serve is answered as one without them, as the hosted API answers
    // it, so that its clients (the MCP server among them) ask again for web results alone.
    if (asksForExchange(body))
      throw new WebwatchError(EXCHANGE_NOT_ENABLED, {
        status: 403,
        details: { reason: 'webwatch offers web, news and image results; provider tools ("alexandria", domainTools) are the hosted service\'s' },
      });
    const validation = validateSearchRequest(body);
    if (!validation.ok) throw invalid(validation.problems);
    const { scrapeOptions: rawScrapeOptions, ...search } = validation.value;
    let scrapeOptions: ScrapeOptions | undefined;
    if (rawScrapeOptions) {
      const options = validateScrapeOptions(rawScrapeOptions, 'wire');
      if (!options.ok) throw invalid(options.problems.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
      scrapeOptions = options.value;
    }
    return limited(request, reply, async () => {
      const { warning, creditsUsed, ...data } = await servicesOf(request).search.query(search, scrapeOptions);
      // As the hosted API answers: an id (the request's, as serve's log names it) and the credits.
      return { success: true, data, id: request.id, creditsUsed, ...(warning && { warning }) };
    });
  });
};
