/**
 * Crawls of one team: from a start URL to the end, each page's credits booked as it is stored;
 * serve paces the pages (politeness per host, the team's page slots) and says what is kept of
 * them. Also the crawl options a model derives from a prompt (POST /v2/crawl/params-preview).
 */
import type { CrawlPage, CrawlSummary } from '../contract/crawl.js';
import type { CrawlPacing } from '../engine/crawl/crawl.js';
import type { CrawlOptions } from '../spec/schemas.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import { once, type Retention, type Team } from './team.js';

const crawlModule = once(() => import('../engine/crawl/crawl.js'));

export interface TeamCrawlService {
  run(
    url: string,
    crawlOptions: CrawlOptions,
    scrapeOptions: ScrapeOptions,
    onPage: (page: CrawlPage) => void | Promise<void>,
    signal?: AbortSignal,
    run?: { pacing?: CrawlPacing; retention?: Retention },
  ): Promise<CrawlSummary>;
  /** Crawl options the model derives from `prompt` for a crawl of `url`. */
  paramsPreview(url: string, prompt: string, signal?: AbortSignal): Promise<{ data: Record<string, unknown> & { url: string }; warning?: string }>;
}

export function crawlService(team: Team): TeamCrawlService {
  let previewModel: Promise<import('../engine/llm/chat.js').ChatModel> | undefined;
  return {
    run: async (url, crawlOptions, scrapeOptions, onPage, signal, run) =>
      (await crawlModule()).crawl(
        url,
        crawlOptions,
        scrapeOptions,
        await team.scrapeContext(signal, run?.retention),
        async (page) => {
          await onPage(page);
          // Booked as each page is stored, as a batch's pages are: a crawl whose process dies
          // half-way has paid for the pages it stored, and for no other (the ledger groups its writes).
          if ('document' in page) await team.spent('crawl', page.document.metadata.creditsUsed);
        },
        run?.pacing,
      ),
    paramsPreview: async (url, prompt, signal) => {
      const settings = team.model('crawl');
      if (!settings) {
        const { modelNotConfigured } = await import('../engine/extract/needs.js');
        throw modelNotConfigured(['the crawl params preview']);
      }
      const [{ chatModel }, { previewCrawlParams }] = await Promise.all([import('../engine/llm/chat.js'), import('../engine/crawl/params-preview.js')]);
      return previewCrawlParams(await (previewModel ??= chatModel(settings)), url, prompt, signal);
    },
  };
}
