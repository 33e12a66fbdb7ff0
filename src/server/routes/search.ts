/** POST /v2/search: a web search over the server's configured provider, as one of the key's jobs. */
import type { FastifyPluginAsync } from 'fastify';
import { validateScrapeOptions } from '../../spec/schemas.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { validateSearchRequest } from '../../spec/search.js';
import { asObject, invalid } from '../http.js';
import type { RouteDeps } from './deps.js';

export const searchRoutes: FastifyPluginAsync<RouteDeps> = async (app, { engineOf }) => {
  const { limited } = app.limits;
  app.post('/v2/search', async (request, reply) => {
    const validation = validateSearchRequest(asObject(request.body));
    if (!validation.ok) throw invalid(validation.problems);
    const { scrapeOptions: rawScrapeOptions, ...search } = validation.value;
    let scrapeOptions: ScrapeOptions | undefined;
    if (rawScrapeOptions) {
      const options = validateScrapeOptions(rawScrapeOptions, 'wire');
      if (!options.ok) throw invalid(options.problems.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
      scrapeOptions = options.value;
    }
    return limited(request, reply, async () => {
      const { warning, creditsUsed, ...data } = await engineOf(request).search(search, scrapeOptions);
      // As the hosted API answers: an id (the request's, as serve's log names it) and the credits.
      return { success: true, data, id: request.id, creditsUsed, ...(warning && { warning }) };
    });
  });
};
