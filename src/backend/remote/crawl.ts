/** Crawls on a remote API: a job started, its pages read as they come (paged by `next`), cancelled when interrupted. */
import type { ScrapeDocument } from '../../contract/scrape.js';
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import type { CrawlJobStatus, CrawlService } from '../../services/interfaces.js';
import { POLL_INTERVAL_MS, type JobStatusAnswer, type Remote } from './remote.js';

const crawlPath = (id: string) => `/crawl/${encodeURIComponent(id)}`;

export function remoteCrawls({ client, sleep }: Remote): CrawlService {
  return {
    async run(url, crawlOptions, scrapeOptions, onPage, signal) {
      const started = await client.request<{ id: string }>('POST', '/crawl', { body: { url, ...crawlOptions, scrapeOptions } });
      let seen = 0;
      try {
        for (;;) {
          signal?.throwIfAborted();
          // Documents from the first one not yet seen: a large crawl's answers are paged (`next`).
          const status = await client.request<JobStatusAnswer<ScrapeDocument>>('GET', crawlPath(started.id), { query: { skip: seen } });
          const documents = status.data ?? [];
          for (const document of documents) await onPage({ url: document.metadata?.url ?? document.metadata?.sourceURL ?? url, depth: 0, document });
          seen += documents.length;
          if (status.next) continue;
          if (status.status === 'failed') throw new WebwatchError(`the crawl failed: ${status.error ?? 'no reason given'}`);
          if (status.status === 'cancelled') throw new WebwatchError(`crawl ${started.id} was cancelled`, { code: 'CRAWL_CANCELLED' });
          if (status.status === 'completed') return { pages: seen, errors: Math.max(0, (status.total ?? seen) - seen), skippedByRobots: 0, robotsBlocked: [] };
          await sleep(POLL_INTERVAL_MS);
        }
      } catch (error) {
        // Interrupted: the API's crawl stops too, rather than run on for no one.
        if (signal?.aborted) {
          await client.request('DELETE', crawlPath(started.id)).catch(() => undefined);
          throw new WebwatchError(`interrupted: crawl ${started.id} was cancelled on the API`, { code: 'CRAWL_CANCELLED', exitCode: EXIT.interrupted });
        }
        throw error;
      }
    },
    start: async (url, crawlOptions, scrapeOptions) =>
      client.request<{ id: string; url: string }>('POST', '/crawl', { body: { url, ...crawlOptions, scrapeOptions } }),
    status: async (id, skip) => {
      const status = await client.request<CrawlJobStatus>('GET', crawlPath(id), { query: { skip } });
      return { ...status, id: status.id ?? id, data: status.data ?? [] };
    },
    cancel: async (id) => {
      await client.request('DELETE', crawlPath(id));
    },
    errors: async (id) => {
      const answer = await client.request<{ errors?: []; robotsBlocked?: string[]; data?: { errors?: []; robotsBlocked?: string[] } }>(
        'GET',
        `${crawlPath(id)}/errors`,
      );
      const body = answer.data ?? answer;
      return { errors: body.errors ?? [], robotsBlocked: body.robotsBlocked ?? [] };
    },
    active: async () => (await client.request<{ crawls?: { id: string; url: string }[] }>('GET', '/crawl/active')).crawls ?? [],
  };
}
