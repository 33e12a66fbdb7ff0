/** The monitor routes of `webwatch serve`: monitors, their runs, checks and page results. */
import type { FastifyPluginAsync } from 'fastify';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { maskHeaderValues, unmaskHeaderValues } from '../../spec/header-masks.js';
import { createRequestOf, normalizeMonitor, type NormalizedMonitor } from '../../spec/monitor.js';
import { validateMonitorRequest, validateMonitorUpdate } from '../../spec/schemas.js';
import { asObject, invalid, page, whole } from '../http.js';
import type { RouteDeps } from './deps.js';

/** Page results in one answer of a check, unless `limit` says otherwise. */
const CHECK_PAGES_DEFAULT = 1000;

// Every scrape, crawl and webhook URL of a definition passes the private-network rule when the
// team's monitor service saves it (services/monitors.ts), which stores the rule with the monitor.
export const monitorRoutes: FastifyPluginAsync<RouteDeps> = async (app, { servicesOf, served, work }) => {
  const { outOfCredits } = app.limits;
  // A monitor created, changed, paused or resumed may move the scheduler's next wake-up.
  app.addHook('onResponse', async (request, reply) => {
    if (request.method !== 'GET' && reply.statusCode < 300) work.monitorsChanged();
  });

  // Header values are secrets, answered masked to every key of the team (docs/serve.md, "Header values of monitors").
  app.post('/v2/monitor', async (request) => {
    // A masked value here stands for nothing: the monitor is new.
    const unmasked = unmaskHeaderValues(asObject(request.body), undefined);
    if (unmasked.problems.length > 0) throw invalid(unmasked.problems);
    const validation = validateMonitorRequest(unmasked.value, 'wire');
    if (!validation.ok) throw invalid(validation.problems);
    const definition = normalizeMonitor(validation.value);
    return { success: true, data: maskHeaderValues(await servicesOf(request).monitors.create(definition)) };
  });

  app.get<{ Querystring: { includeDeleted?: string; limit?: string; offset?: string } }>('/v2/monitor', async (request) => {
    const monitors = await servicesOf(request).monitors.list({ includeDeleted: request.query.includeDeleted === 'true' });
    return { success: true, data: page(monitors, request.query.offset, request.query.limit).map(maskHeaderValues) };
  });

  app.get<{ Params: { id: string } }>('/v2/monitor/:id', async (request) => ({
    success: true,
    data: maskHeaderValues(await servicesOf(request).monitors.get(request.params.id)),
  }));

  app.patch<{ Params: { id: string } }>('/v2/monitor/:id', async (request) => {
    const body = asObject(request.body);
    // The fields sent are judged first, alone, so that a bad one is named (not a missing field
    // of the whole definition); the merged definition is then judged as a whole.
    const patch = validateMonitorUpdate(body, 'wire');
    if (!patch.ok) throw invalid(patch.problems);
    const { monitors } = servicesOf(request);
    const existing = await monitors.get(request.params.id);
    const { status, ...sent } = body as { status?: 'active' | 'paused' };
    // A masked value sent back (read from this server) keeps the value stored under its name.
    const { value: fields, problems } = unmaskHeaderValues(sent, existing);
    if (problems.length > 0) throw invalid(problems);
    let definition: NormalizedMonitor | undefined;
    if (Object.keys(fields).length > 0) {
      const merged = { ...createRequestOf(existing), ...fields };
      const validation = validateMonitorRequest(merged, 'wire');
      if (!validation.ok) throw invalid(validation.problems);
      definition = normalizeMonitor(validation.value);
    }
    return { success: true, data: maskHeaderValues(await monitors.update(existing.id, { ...(definition && { definition }), ...(status && { status }) })) };
  });

  app.delete<{ Params: { id: string } }>('/v2/monitor/:id', async (request) => ({
    success: true,
    data: maskHeaderValues(await servicesOf(request).monitors.delete(request.params.id)),
  }));

  app.post<{ Params: { id: string } }>('/v2/monitor/:id/run', async (request, reply) => {
    const { checks } = servicesOf(request);
    if (await outOfCredits(request, reply)) return reply;
    // Queued for whichever worker has room; the answer is the queued check.
    const check = await checks.queue(request.params.id, work.context(request));
    await work.queued();
    return { success: true, data: check };
  });

  app.get<{ Params: { id: string }; Querystring: { limit?: string; offset?: string } }>('/v2/monitor/:id/checks', async (request) => ({
    success: true,
    data: page(await servicesOf(request).checks.list(request.params.id), request.query.offset, request.query.limit),
  }));

  app.get<{ Params: { id: string; checkId: string }; Querystring: { status?: string; limit?: string; skip?: string } }>(
    '/v2/monitor/:id/checks/:checkId',
    async (request) => {
      const { status, limit, skip } = request.query;
      const statuses = ['new', 'same', 'changed', 'removed', 'error'] as const;
      if (status !== undefined && !statuses.includes(status as never)) {
        throw new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: 'status', message: `must be one of ${statuses.join(', ')}` }] });
      }
      const from = whole(skip, 'skip', 0);
      const count = whole(limit, 'limit', CHECK_PAGES_DEFAULT);
      const check = await servicesOf(request).checks.get(request.params.id, request.params.checkId, status as (typeof statuses)[number] | undefined);
      // More pages than this answer holds: `next` is where the rest begins, as the hosted API pages them.
      const rest = new URL(`${request.protocol}://${request.host}${request.url}`);
      rest.searchParams.set('skip', String(from + count));
      rest.searchParams.set('limit', String(count));
      const next = count > 0 && from + count < check.pages.length ? rest.href : null;
      // Kept screenshots as URLs of this server, readable with a key of the team.
      return { success: true, data: { ...check, pages: check.pages.slice(from, from + count).map((page) => served(request, page)), next } };
    },
  );

  // A check's report, for a browser: the same self-contained page `monitor report` writes.
  app.get<{ Params: { id: string; checkId: string } }>('/v2/monitor/:id/checks/:checkId/report', async (request, reply) => {
    const { html } = await servicesOf(request).checks.report(request.params.id, request.params.checkId);
    const [{ contentSecurityPolicy }, { Readable }] = await Promise.all([import('../../engine/report/render-report.js'), import('node:stream')]);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', `${contentSecurityPolicy()}; frame-ancestors 'none'`)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'private, no-store')
      .send(Readable.from(html));
  });
};
