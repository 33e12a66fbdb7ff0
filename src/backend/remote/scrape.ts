/** Scrapes on a remote API: a page by POST /scrape, several as one batch scrape job (cancelled when interrupted). */
import type { ScrapeDocument } from '../../contract/scrape.js';
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { ScrapeResult, ScrapeService } from '../../services/interfaces.js';
import { POLL_INTERVAL_MS, type JobStatusAnswer, type Remote } from './remote.js';

export function remoteScrapes({ client, data, sleep }: Remote): ScrapeService {
  return {
    one: async (url, scrapeOptions) => data<ScrapeDocument>('POST', '/scrape', { body: { url, ...scrapeOptions } }),
    async many(urls, scrapeOptions, onResult, signal) {
      const started = await client.request<{ id: string; invalidURLs?: string[] }>('POST', '/batch/scrape', {
        body: { urls, ...scrapeOptions, ignoreInvalidURLs: true },
      });
      const path = `/batch/scrape/${encodeURIComponent(started.id)}`;
      const byUrl = new Map<string, ScrapeResult>();
      for (const url of started.invalidURLs ?? []) byUrl.set(url, { url, error: new WebwatchError(ERROR_MESSAGES.invalidUrl, { status: 400 }) });
      try {
        let seen = 0;
        for (;;) {
          signal?.throwIfAborted();
          const status = await client.request<JobStatusAnswer<ScrapeDocument>>('GET', path, { query: { skip: seen } });
          for (const document of status.data ?? []) {
            const url = document.metadata?.sourceURL ?? document.metadata?.url ?? '';
            byUrl.set(url, { url, document });
            onResult?.(byUrl.size);
          }
          seen += status.data?.length ?? 0;
          if (status.next) continue;
          if (status.status === 'failed' || status.status === 'cancelled')
            throw new WebwatchError(`the batch scrape ${status.status === 'failed' ? 'failed' : 'was cancelled'}: ${status.error ?? 'no reason given'}`);
          if (status.status === 'completed') break;
          await sleep(POLL_INTERVAL_MS);
        }
      } catch (error) {
        if (signal?.aborted) {
          await client.request('DELETE', path).catch(() => undefined);
          throw new WebwatchError(`interrupted: batch scrape ${started.id} was cancelled on the API`, { code: 'BATCH_CANCELLED', exitCode: EXIT.interrupted });
        }
        throw error;
      }
      const failed = await client.request<{ errors?: { url: string; error: string; code?: string }[] }>('GET', `${path}/errors`);
      for (const failure of failed.errors ?? [])
        byUrl.set(failure.url, { url: failure.url, error: new WebwatchError(failure.error, { ...(failure.code && { code: failure.code }) }) });
      // In the order asked; a URL the API normalised is found by its normal form.
      const normal = (url: string) => {
        try {
          return new URL(url).href;
        } catch {
          return url;
        }
      };
      return urls.map((url) => byUrl.get(url) ?? byUrl.get(normal(url)) ?? { url, error: new WebwatchError('the batch scrape did not return this URL') });
    },
  };
}
