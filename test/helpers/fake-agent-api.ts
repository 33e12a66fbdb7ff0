/**
 * The hosted API's agent routes as its clients meet them, on 127.0.0.1: POST /v2/agent, status,
 * list, cancel, and a trace that answers every event so far at once (it neither waits nor honours
 * `since`). Each job plays a script of trace events over time; its status turns terminal a
 * little after `run.finished`, as a real service's does. Faults are injected on the trace route
 * (429 with Retry-After, 502) at the requests the test names.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TraceEvent, TraceEventBody } from '../../src/engine/agent/trace.js';
import { readBody } from './server.js';

export interface ScriptedRun {
  /** Events with when they happen, in ms after the job was created. */
  events: { atMs: number; body: TraceEventBody; agent?: string }[];
  /** When the status turns terminal, in ms after creation. */
  statusAtMs: number;
  status: { status: 'completed'; data: unknown } | { status: 'failed'; error: string };
  credits?: number;
}

export interface Fault {
  /** The n-th trace request of the job (1-based). */
  traceRequest: number;
  status: number;
  retryAfterSeconds?: number;
}

export interface FakeAgentApi {
  url: string;
  /** The trace requests, with their query, for each job. */
  traceRequests: Map<string, URLSearchParams[]>;
  close(): Promise<void>;
}

export async function startFakeAgentApi(script: (prompt: string) => { run: ScriptedRun; faults?: Fault[] }): Promise<FakeAgentApi> {
  const jobs = new Map<string, { created: number; prompt: string; run: ScriptedRun; faults: Fault[] }>();
  const traceRequests = new Map<string, URLSearchParams[]>();
  const send = (response: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const eventsOf = (id: string, now: number): TraceEvent[] => {
    const job = jobs.get(id)!;
    return job.run.events
      .filter((e) => job.created + e.atMs <= now)
      .map(
        (e, i) =>
          ({
            ...e.body,
            schemaVersion: 1,
            eventId: `${id}-${i + 1}`,
            runId: id,
            occurredAt: new Date(job.created + e.atMs).toISOString(),
            producerSequence: i + 1,
            agent: {
              id: `${id}:${e.agent ?? 'orchestrator'}`,
              role: e.agent?.startsWith('subagent') ? 'subagent' : 'orchestrator',
              name: e.agent ?? 'orchestrator',
            },
          }) as TraceEvent,
      );
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (request.headers.authorization !== 'Bearer fc-test') return send(response, 401, { success: false, error: 'Unauthorized: Invalid token' });
    const parts = url.pathname.split('/').filter(Boolean);
    const now = Date.now();
    if (parts[0] !== 'v2' || parts[1] !== 'agent') return send(response, 404, { success: false, error: 'Not Found' });
    if (request.method === 'POST' && parts.length === 2) {
      const { prompt } = JSON.parse(await readBody(request)) as { prompt: string };
      const id = randomUUID();
      const { run, faults = [] } = script(prompt);
      jobs.set(id, { created: now, prompt, run, faults });
      return send(response, 200, { success: true, id });
    }
    if (request.method === 'GET' && parts.length === 2) {
      return send(response, 200, {
        success: true,
        agents: [...jobs.entries()].map(([id, job]) => ({
          id,
          createdAt: new Date(job.created).toISOString(),
          targetHint: job.prompt,
          origin: 'api',
          settings: { hidden: false, starred: false },
          status: now >= job.created + job.run.statusAtMs ? job.run.status.status : 'processing',
        })),
      });
    }
    const job = jobs.get(parts[2] ?? '');
    if (!job) return send(response, 404, { success: false, error: 'Agent job not found' });
    const id = parts[2]!;
    if (request.method === 'GET' && parts.length === 3) {
      const ended = now >= job.created + job.run.statusAtMs;
      return send(response, 200, {
        success: true,
        status: ended ? job.run.status.status : 'processing',
        ...(ended && job.run.status.status === 'completed' && { data: job.run.status.data }),
        ...(ended && job.run.status.status === 'failed' && { error: job.run.status.error }),
        model: 'spark-2',
        expiresAt: new Date(job.created + 86_400_000).toISOString(),
        creditsUsed: ended ? (job.run.credits ?? 0) : 0,
      });
    }
    if (request.method === 'GET' && parts[3] === 'trace') {
      const seen = traceRequests.get(id) ?? [];
      seen.push(url.searchParams);
      traceRequests.set(id, seen);
      const fault = job.faults.find((f) => f.traceRequest === seen.length);
      if (fault)
        return send(
          response,
          fault.status,
          { success: false, error: fault.status === 429 ? 'Rate limit exceeded' : 'Bad Gateway' },
          fault.retryAfterSeconds !== undefined ? { 'retry-after': String(fault.retryAfterSeconds) } : {},
        );
      const events = eventsOf(id, now);
      return send(response, 200, { success: true, id, events, creditsUsed: Math.min(job.run.credits ?? 0, events.length) });
    }
    send(response, 404, { success: false, error: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`,
    traceRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
