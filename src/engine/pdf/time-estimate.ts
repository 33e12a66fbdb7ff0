/**
 * Whether the pages of a PDF can be read within their scrape's timeout: a PDF that cannot is
 * refused at once, with the hosted API's words (`Insufficient time to process PDF of N pages,
 * which requires more processing time than your current timeout allows`), instead of being read
 * until the timeout stops it.
 *
 * The rule is the page count against the timeout, at fixed speeds: the same document and timeout
 * get the same answer on every machine, however fast, busy or far from the site it is (a rule
 * on the time left, or on this machine's measured speed, answered differently from one run to
 * the next). The speeds are those measured on the bench (bench/README.md, "PDFs"; 2 cores,
 * poppler 22.12, tesseract 5.3), with a margin:
 * - the text layer (`fast`, and the first pass of `auto`): 258 pages a second over 407 pages,
 *   about 3.9 ms a page, the child processes included;
 * - OCR (`ocr`, and the pages of `auto` without usable text): 1.31 s a page (median of four
 *   documents, two pages at a time); 0.65 s on the quickest document, 1.59 s on the slowest,
 *   2.1 s with other work on the machine.
 * Per document and with the machine's load the time moves about twofold either way. So a PDF is
 * refused only when its pages would not fit in the timeout even read twice as fast as measured,
 * so that a PDF that could be read in time is seldom refused; and the timeout the error suggests
 * is what the pages need read twice as slowly, so that asking again with it is likely to be
 * enough. A PDF that is refused is not fetched or read faster by asking again: the code is not
 * retried. One that passes and is still slower than its timeout fails with the scrape's timeout.
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

/**
 * Throws SCRAPE_PDF_INSUFFICIENT_TIME_ERROR (408, not retried) when `pages` pages of `work`
 * cannot be read within `timeoutMs` even at SPEED_MARGIN times the measured speed. `total` is
 * the document's page count, for the message.
 */
export function ensureTimeFor(work: PdfWork, pages: number, total: number, timeoutMs: number): void {
  if (pages <= 0) return;
  const msPerPage = MS_PER_PAGE[work];
  const fastest = Math.ceil((pages * msPerPage) / SPEED_MARGIN);
  if (fastest <= timeoutMs) return;
  // What the pages need read at half the measured speed: whole seconds.
  const enough = Math.ceil((pages * msPerPage * SPEED_MARGIN) / 1000) * 1000;
  const what =
    work === 'ocr'
      ? pages === total
        ? 'read by OCR, its pages'
        : `${pages} of them to read by OCR`
      : pages === total
        ? 'its text'
        : `the text of ${pages} of them`;
  const advice =
    enough <= SCRAPE_TIMEOUT_MAX_MS
      ? `Please increase the timeout parameter in your scrape request to at least ${enough}ms.`
      : `They need more than the longest timeout (${SCRAPE_TIMEOUT_MAX_MS}ms): read fewer pages with the pdf parser's maxPages (about ${Math.max(1, Math.floor(SCRAPE_TIMEOUT_MAX_MS / (msPerPage * SPEED_MARGIN)))} fit in it).`;
  // The message says it all: a conversion worker passes on an error's message, code and status only.
  throw new WebwatchError(
    `${PDF_INSUFFICIENT_TIME_MESSAGE} of ${plural(total, 'page')}, which requires more processing time than your current timeout allows (${timeoutMs}ms): ${what} need ${fastest}ms at the least. ${advice}`,
    {
      status: 408,
      code: PDF_INSUFFICIENT_TIME,
    },
  );
}
