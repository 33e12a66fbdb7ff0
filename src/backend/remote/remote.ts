/** What every resource of a remote v2 API shares: the client, the envelope's `data`, and the wait between polls. */
import { ApiClient, type ApiClientOptions } from './api-client.js';

/** How often a waiting command asks about a running check or crawl. */
export const POLL_INTERVAL_MS = 1000;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RemoteOptions extends ApiClientOptions {
  sleep?: (ms: number) => Promise<void>;
}

/** A paged job status (crawl, batch scrape) as the API answers it. */
export interface JobStatusAnswer<Document> {
  status: string;
  next?: string | null;
  total?: number;
  completed?: number;
  data?: Document[];
  error?: string;
}

export interface Remote {
  readonly client: ApiClient;
  /** The `data` of an answer's `{success, data}` envelope. */
  data<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    request?: { body?: unknown; query?: Record<string, string | number | boolean | undefined> },
  ): Promise<T>;
  sleep(ms: number): Promise<void>;
}

export function remote(options: RemoteOptions): Remote {
  const client = new ApiClient(options);
  return {
    client,
    data: async <T>(
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      request?: { body?: unknown; query?: Record<string, string | number | boolean | undefined> },
    ) => (await client.request<{ success?: boolean; data: T }>(method, path, request)).data,
    sleep: options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
}
