/**
 * Whether the pages of a PDF can be read in the time left of their scrape: a PDF that cannot
 * is refused at once, with the hosted API's words (`Insufficient time to process PDF`), instead
 * of being read until the timeout stops it.
 *
 * The estimate is pages times the time a page took on the bench (bench/README.md, "PDFs"; 2
 * cores, poppler 22.12, tesseract 5.3):
 * - the text layer (`fast`, and the first pass of `auto`): 258 pages a second over 407 pages,
 *   about 3.9 ms a page, the child processes included;
 * - OCR (`ocr`, and the pages of `auto` without usable text): 1.31 s a page (median of four
 *   documents, two pages at a time); 0.65 s on the quickest document, 1.59 s on the slowest,
 *   2.1 s with other work on the machine.
 * Per document and with the machine's load the time moves about twofold either way, and a
 * faster machine reads faster still. So the margin is a factor of 2 each way: a PDF is refused
 * only when its pages would not fit in the time left even read twice as fast as measured (for
 * OCR, as fast as the quickest document measured), so that a PDF that could be read in time
 * is seldom refused; and the timeout the error suggests is what the pages need read twice as
 * slowly, so that asking again with it is likely to be enough.
 * A page without text costs the text layer far less than the bench's pages (3,000 blank pages
 * read in about 1 s on the same machine, 0.3 ms a page): where the document's first pages were
 * timed (the text layer's first run, up to 100 pages), the faster of that speed and the bench's
 * counts.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';
import { PDF_INSUFFICIENT_TIME, PDF_INSUFFICIENT_TIME_MESSAGE } from '../../spec/errors.js';
import { SCRAPE_TIMEOUT_MAX_MS } from '../../spec/limits.js';
import { plural } from '../../lib/plural.js';

/** Milliseconds a page takes, measured (see above). */
export const MS_PER_PAGE = { text: 1000 / 258, ocr: 1310 } as const;
/** How much faster or slower than measured a page may be read. */
export const SPEED_MARGIN = 2;

export type PdfWork = keyof typeof MS_PER_PAGE;

export interface TimeLeft {
  /** Epoch milliseconds: the scrape's deadline. */
  deadline: number;
  /** The scrape's timeout, in milliseconds. */
  timeoutMs: number;
}

export interface Observed {
  /** Milliseconds a page of this document took, where some were timed. */
  msPerPage?: number;
  now?: number;
}

/**
 * Throws SCRAPE_PDF_INSUFFICIENT_TIME_ERROR (408, not retried) when `pages` pages of `work`
 * cannot be read before the deadline even at SPEED_MARGIN times the measured speed (or the
 * document's own, when faster). `total` is the document's page count, for the message.
 */
export function ensureTimeFor(work: PdfWork, pages: number, total: number, limits: TimeLeft, observed: Observed = {}): void {
  if (pages <= 0) return;
  const left = limits.deadline - (observed.now ?? Date.now());
  const msPerPage = observed.msPerPage !== undefined && observed.msPerPage >= 0 ? Math.min(MS_PER_PAGE[work], observed.msPerPage) : MS_PER_PAGE[work];
  const fastest = (pages * msPerPage) / SPEED_MARGIN;
  if (fastest <= left) return;
  const spent = Math.max(0, limits.timeoutMs - left);
  // What the pages need read at half that speed, on top of what the scrape has spent: whole seconds.
  const enough = Math.ceil((spent + pages * msPerPage * SPEED_MARGIN) / 1000) * 1000;
  const which = pages === total ? (work === 'ocr' ? ' (by OCR)' : '') : ` (${pages} of them ${work === 'ocr' ? 'by OCR' : 'still to read'})`;
  const advice =
    enough <= SCRAPE_TIMEOUT_MAX_MS
      ? `Please increase the timeout parameter in your scrape request to at least ${enough}ms.`
      : `They need more than the longest timeout (${SCRAPE_TIMEOUT_MAX_MS}ms): read fewer pages with the pdf parser's maxPages (about ${Math.max(1, Math.floor((SCRAPE_TIMEOUT_MAX_MS - spent) / (msPerPage * SPEED_MARGIN)))} fit in it).`;
  // The message says it all: a conversion worker passes on an error's message, code and status only.
  throw new WebwatchError(
    `${PDF_INSUFFICIENT_TIME_MESSAGE} of ${plural(total, 'page')}${which}: ${Math.max(0, Math.round(left))}ms of the scrape's timeout (${limits.timeoutMs}ms) are left. ${advice}`,
    {
      status: 408,
      code: PDF_INSUFFICIENT_TIME,
    },
  );
}
