/** POST /v2/scrape and POST /v2/map: one answer per request, each one of the key's concurrent jobs. */
import type { FastifyPluginAsync } from 'fastify';
import { validateMapRequest } from '../../spec/map.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { asObject, invalid, targetUrl } from '../http.js';
import type { RouteDeps } from './deps.js';

export const scrapeRoutes: FastifyPluginAsync<RouteDeps> = async (app, { engineOf, served }) => {
  const { limited } = app.limits;
  app.post('/v2/scrape', async (request, reply) => {
    const { url, ...rest } = asObject(request.body);
    const target = targetUrl(url);
    const validation = validateScrapeOptions(rest, 'wire');
    if (!validation.ok) throw invalid(validation.problems);
    return limited(request, reply, async () => {
      const document = await engineOf(request).scrape(target.href, validation.value);
      // Screenshots and PDFs are files of this machine: the client gets URLs of this server.
      return { success: true, data: served(request, document) };
    });
  });

  app.post('/v2/map', async (request, reply) => {
    const body = asObject(request.body);
    const target = targetUrl(body.url);
    const validation = validateMapRequest({ ...body, url: target.href });
    if (!validation.ok) throw invalid(validation.problems);
    return limited(request, reply, async () => ({ success: true, ...(await engineOf(request).map(validation.value)), id: request.id }));
  });
};
