/** POST /v2/scrape: one page, as one of the key's concurrent jobs. */
import type { FastifyInstance } from 'fastify';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { asObject, invalid, targetUrl } from '../http.js';
import type { RouteDeps } from './deps.js';

export function scrapeRoutes(app: FastifyInstance, { backendOf, limited }: RouteDeps): void {
  app.post('/v2/scrape', async (request, reply) => {
    const { url, ...rest } = asObject(request.body);
    const target = targetUrl(url);
    const validation = validateScrapeOptions(rest, 'wire');
    if (!validation.ok) throw invalid(validation.problems);
    return limited(request, reply, async () => ({ success: true, data: await backendOf(request.team).scrape(target.href, validation.value) }));
  });
}
