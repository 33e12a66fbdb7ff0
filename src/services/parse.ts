/**
 * Files of one team read as a scrape would read them (POST /v2/parse, `webwatch parse`): nothing
 * is fetched or cached, and the document says which file it came from.
 */
import type { ParsedDocument } from '../contract/scrape.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import type { ParseService } from './interfaces.js';
import { scrapeModule } from './scrape.js';
import type { Retention, Team } from './team.js';

export interface TeamParseService extends ParseService {
  parse(
    file: { body: Buffer; filename: string; contentType: string },
    options: ScrapeOptions,
    signal?: AbortSignal,
    retention?: Retention,
  ): Promise<ParsedDocument>;
}

export function parseService(team: Team): TeamParseService {
  return {
    parse: async (file, options, signal, retention) => {
      // A file URL of its name alone: a document's relative links resolve to nothing of the network.
      const url = `file:///${encodeURIComponent(file.filename)}`;
      const document = await (await scrapeModule()).scrapeUpload(
        { url, options, upload: { body: file.body, contentType: file.contentType } },
        await team.scrapeContext(signal, retention),
      );
      await team.spent('scrape', document.metadata.creditsUsed);
      const { sourceURL: _, url: __, proxyUsed: ___, cacheState: ____, cachedAt: _____, ...metadata } = document.metadata;
      return { ...document, metadata: { ...metadata, sourceFile: file.filename } };
    },
  };
}
