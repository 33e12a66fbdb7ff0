/**
 * POST /v2/scrape and POST /v2/map: one answer per request, each one of the key's concurrent
 * jobs. GET /v2/scrape/{id}: a scrape's document as it was answered, for a day (scrape-documents.ts);
 * the pages of crawls and batch scrapes too, by their scrapeId.
 */
import type { FastifyPluginAsync } from 'fastify';
import { scrapeDocumentStore } from '../../engine/store/scrape-documents.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { validateMapRequest } from '../../spec/map.js';
import { retainsNothing } from '../../spec/zero-data-retention.js';
import { asObject, invalid, scrapeOptionsWithRetention, targetUrl } from '../http.js';
import type { RouteDeps } from './deps.js';

/** The code of a scrape id that names no document of the key's team. */
export const SCRAPE_NOT_FOUND = 'SCRAPE_NOT_FOUND';

export const scrapeRoutes: FastifyPluginAsync<RouteDeps> = async (app, { db, now, servicesOf, served, rememberScrape }) => {
  const { limited } = app.limits;
  const documents = scrapeDocumentStore(db);
  const stopReporting = documents.onWriteFailure((error) => app.log.error({ err: error }, 'writing scrape documents for GET /v2/scrape/{id}'));
  app.addHook('onClose', async () => stopReporting());

  app.post('/v2/scrape', async (request, reply) => {
    const { url, zeroDataRetention, ...rest } = asObject(request.body);
    const target = targetUrl(url);
    const checked = scrapeOptionsWithRetention(rest, zeroDataRetention);
    return limited(request, reply, async () => {
      const document = await servicesOf(request).scrape.one(target.href, checked.options, undefined, { zeroDataRetention: checked.zeroDataRetention });
      // Screenshots and PDFs are files of this machine: the client gets URLs of this server.
      // Serialised once, for the answer and for GET /v2/scrape/{id}, which answers the same bytes.
      const data = JSON.stringify(served(request, document));
      if (!retainsNothing(checked.zeroDataRetention, checked.options)) {
        documents.keep(request.team, document.metadata.scrapeId, data, now());
        rememberScrape?.(request.team, document.metadata.scrapeId, checked.options);
      }
      return reply.type('application/json; charset=utf-8').send(`{"success":true,"data":${data}}`);
    });
  });

  app.get<{ Params: { id: string } }>('/v2/scrape/:id', async (request, reply) => {
    const data = await documents.find(request.team, request.params.id, now());
    if (data === undefined) {
      throw new WebwatchError(ERROR_MESSAGES.notFound, {
        status: 404,
        code: SCRAPE_NOT_FOUND,
        details: {
          scrapeId: request.params.id,
          reason: "no scrape with this id for this key's team: documents are kept for 24 hours, and never under zeroDataRetention or lockdown",
        },
      });
    }
    return reply.type('application/json; charset=utf-8').send(`{"success":true,"data":${data}}`);
  });

  app.post('/v2/map', async (request, reply) => {
    const body = asObject(request.body);
    const target = targetUrl(body.url);
    const validation = validateMapRequest({ ...body, url: target.href });
    if (!validation.ok) throw invalid(validation.problems);
    return limited(request, reply, async () => ({ success: true, ...(await servicesOf(request).map.links(validation.value)), id: request.id }));
  });
};
