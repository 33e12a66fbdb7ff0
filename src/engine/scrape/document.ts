/** The v2 scrape result (DESIGN §5), as the engine returns it: its types live in src/contract. */
export type { ChangeTracking, DocumentMetadata, ScrapeDocument } from '../../contract/scrape.js';
