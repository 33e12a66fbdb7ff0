/** Agent and extract jobs on a remote API. A job's start is never sent twice: a POST that may have reached the API is not retried (api-client). */
import type { AgentListItem, AgentStatusDocument, TraceEvent } from '../../contract/agent.js';
import type { ExtractStarted, ExtractStatusDocument } from '../../contract/extract.js';
import type { AgentService, ExtractService } from '../../services/interfaces.js';
import type { Remote } from './remote.js';

const agentPath = (id: string) => `/agent/${encodeURIComponent(id)}`;

export function remoteAgents({ client }: Remote): AgentService {
  return {
    start: async (request) => ({ id: (await client.request<{ success?: boolean; id: string }>('POST', '/agent', { body: request })).id }),
    get: async (id) => client.request<AgentStatusDocument>('GET', agentPath(id)),
    list: async (list = {}) => {
      const answer = await client.request<{ agents?: AgentListItem[]; next?: string }>('GET', '/agent', { query: { before: list.before } });
      return { agents: answer.agents ?? [], ...(answer.next && { next: answer.next }) };
    },
    trace: async (id, since = 0, wait = {}) => {
      // The hosted API answers every event and ignores `since` and `waitMs` (spec §4.2 bodies may
      // lack `success`); webwatch serve answers only the new ones, as soon as there are some.
      const answer = await client.request<{ events?: TraceEvent[]; creditsUsed?: number }>('GET', `${agentPath(id)}/trace`, {
        query: { ...(since > 0 && { since }), ...(wait.waitMs && { waitMs: wait.waitMs }) },
        ...(wait.signal && { signal: wait.signal }),
      });
      const events = (answer.events ?? []).filter((event) => event.producerSequence > since).sort((a, b) => a.producerSequence - b.producerSequence);
      return { events, ...(answer.creditsUsed !== undefined && { creditsUsed: answer.creditsUsed }) };
    },
    snapshot: async (id, snapshotId) => {
      const answer = await client.request<{ snapshot?: unknown }>('GET', `${agentPath(id)}/snapshots/${encodeURIComponent(snapshotId)}`);
      return typeof answer.snapshot === 'string' ? answer.snapshot : JSON.stringify(answer.snapshot ?? null);
    },
    cancel: async (id) => {
      await client.request('DELETE', agentPath(id));
    },
  };
}

export function remoteExtracts({ client }: Remote): ExtractService {
  return {
    start: async (request) => {
      const started = await client.request<ExtractStarted>('POST', '/extract', { body: request });
      return { id: started.id, ...(started.warning && { warning: started.warning }) };
    },
    get: async (id) => client.request<ExtractStatusDocument>('GET', `/extract/${encodeURIComponent(id)}`),
  };
}
