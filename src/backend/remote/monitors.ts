/**
 * Monitors and their checks on a remote API. The API takes whole ids: a name, an id prefix or
 * `latest` is resolved here from its lists (services/monitor-ref.ts), as the local engine does.
 */
import type { CheckRecord, PageResult } from '../../contract/checks.js';
import type { MonitorResource } from '../../contract/monitor.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { createRequestOf } from '../../spec/monitor.js';
import type { CheckService, MonitorService } from '../../services/interfaces.js';
import { resolveCheckRef, resolveMonitorRef } from '../../services/monitor-ref.js';
import { POLL_INTERVAL_MS, UUID, type Remote } from './remote.js';

/** Monitors asked for per request when listing them all. */
const MONITOR_PAGE = 100;
const CHECK_PAGE_SIZE = 1000;

const monitorPath = (id: string) => `/monitor/${encodeURIComponent(id)}`;
const finished = (check: CheckRecord) => check.status !== 'queued' && check.status !== 'running';

/** The id of a monitor given by id or by name; names are looked up in the list. */
async function monitorIdOf({ data }: Remote, idOrName: string): Promise<string> {
  if (UUID.test(idOrName)) return idOrName;
  return resolveMonitorRef(idOrName, await data<MonitorResource[]>('GET', '/monitor', { query: { includeDeleted: true } })).id;
}

export function remoteMonitors(api: Remote): MonitorService {
  const { data } = api;
  return {
    async list(list = {}) {
      // The API answers a page at a time: read every page, or `apply` would take a monitor on a
      // later page for a new one. A server that ignores limit or offset answers with more than a
      // page, or with ids already seen; either ends the walk rather than looping.
      const monitors: MonitorResource[] = [];
      const seen = new Set<string>();
      for (let offset = 0; ; offset += MONITOR_PAGE) {
        const page = await data<MonitorResource[]>('GET', '/monitor', {
          query: { includeDeleted: list.includeDeleted || undefined, limit: MONITOR_PAGE, offset },
        });
        const fresh = page.filter((monitor) => !seen.has(monitor.id));
        for (const monitor of fresh) seen.add(monitor.id);
        monitors.push(...fresh);
        if (page.length !== MONITOR_PAGE || fresh.length < page.length) return monitors;
      }
    },
    get: async (idOrName) => data<MonitorResource>('GET', monitorPath(await monitorIdOf(api, idOrName))),
    create: async (definition) => data<MonitorResource>('POST', '/monitor', { body: createRequestOf(definition) }),
    update: async (id, change) =>
      data<MonitorResource>('PATCH', monitorPath(id), {
        body: { ...(change.definition && createRequestOf(change.definition)), ...(change.status && { status: change.status }) },
      }),
    delete: async (id) => data<MonitorResource>('DELETE', monitorPath(id)),
  };
}

/** A 409 for a paused monitor says how to resume it, as the local engine's does. */
function withPausedHint(error: unknown): unknown {
  if (!(error instanceof WebwatchError) || error.status !== 409 || error.suggestion) return error;
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  const name = typeof reason === 'string' ? /^monitor "(.*)" is paused$/.exec(reason)?.[1] : undefined;
  if (name === undefined) return error;
  return new WebwatchError(error.message, {
    status: 409,
    ...(error.code && { code: error.code }),
    details: error.details,
    suggestion: `resume it with: webwatch monitor resume "${name}"`,
  });
}

export function remoteChecks(api: Remote): CheckService {
  const { client, data, sleep } = api;
  // `latest` and id prefixes are the command line's: the API takes whole ids.
  const checkIdOf = async (id: string, ref: string, idOrName: string) =>
    UUID.test(ref) ? ref : resolveCheckRef(ref, await data<CheckRecord[]>('GET', `${monitorPath(id)}/checks`), idOrName).id;
  const checkPath = (id: string, checkId: string) => `${monitorPath(id)}/checks/${encodeURIComponent(checkId)}`;

  return {
    async run(idOrName, run = { wait: true }) {
      const id = await monitorIdOf(api, idOrName);
      let check: CheckRecord;
      try {
        check = await data<CheckRecord>('POST', `${monitorPath(id)}/run`);
      } catch (error) {
        throw withPausedHint(error);
      }
      while (run.wait && !finished(check)) {
        await sleep(POLL_INTERVAL_MS);
        const { pages: _, ...record } = await data<CheckRecord & { pages?: unknown }>('GET', checkPath(id, check.id), { query: { limit: 0 } });
        check = record as CheckRecord;
      }
      return check;
    },
    runDue: async () => {
      throw new UsageError('run --due runs the checks of the local engine; a remote API runs its monitors on their schedules itself', {
        suggestion: 'add --local, or unset --api-url / WEBWATCH_API_URL',
      });
    },
    list: async (idOrName) => data<CheckRecord[]>('GET', `${monitorPath(await monitorIdOf(api, idOrName))}/checks`),
    get: async (idOrName, ref, status) => {
      const id = await monitorIdOf(api, idOrName);
      const checkId = await checkIdOf(id, ref, idOrName);
      const pages: PageResult[] = [];
      for (let skip = 0; ; skip += CHECK_PAGE_SIZE) {
        const check = await data<CheckRecord & { pages?: PageResult[] }>('GET', checkPath(id, checkId), { query: { status, limit: CHECK_PAGE_SIZE, skip } });
        const batch = check.pages ?? [];
        pages.push(...batch);
        if (batch.length < CHECK_PAGE_SIZE) {
          const { pages: _, ...record } = check;
          return { ...(record as CheckRecord), pages };
        }
      }
    },
    report: async (idOrName, ref) => {
      const id = await monitorIdOf(api, idOrName);
      const checkId = await checkIdOf(id, ref, idOrName);
      const { pages: _, ...check } = await data<CheckRecord & { pages?: PageResult[] }>('GET', checkPath(id, checkId), { query: { limit: 0 } });
      try {
        const html = await client.request<string>('GET', `${checkPath(id, checkId)}/report`, { accept: 'text/html' });
        return { check: check as CheckRecord, html: [html] };
      } catch (error) {
        // The check was just read: a 404 now is an API without the route (the hosted one).
        if (!(error instanceof WebwatchError) || error.status !== 404) throw error;
        throw new WebwatchError(`the API at ${client.base} does not make check reports`, {
          status: 404,
          code: 'REPORT_NOT_OFFERED',
          details: { route: `GET /v2/monitor/{id}/checks/{checkId}/report`, reason: "the route is webwatch serve's own" },
          suggestion: 'run the report on a webwatch serve, or read the check with: webwatch monitor check',
        });
      }
    },
  };
}
