/** The v2 scrape result (DESIGN §5), as the engine returns it: its types live in src/contract. */
export type { ChangeTracking, DocumentMetadata, ScrapeDocument } from '../../contract/scrape.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import type { PageHeadings } from '../content/metadata.js';

/**
 * A converted HTML page's <title> and first <h1>, carried on its document for monitor checks.
 * A symbol key: spreads of the document keep it, and no JSON of the document (an answer, the
 * cache) shows it.
 */
export const PAGE_HEADINGS: unique symbol = Symbol('webwatch.pageHeadings');

export type DocumentWithHeadings = ScrapeDocument & { [PAGE_HEADINGS]?: PageHeadings };

/** The headings of a page converted in this process; undefined for one read from the cache, or not HTML. */
export const headingsOf = (document: ScrapeDocument): PageHeadings | undefined => (document as DocumentWithHeadings)[PAGE_HEADINGS];
