/**
 * The PDF time estimate on its own (no PDF tools needed): a PDF is refused at once when its
 * pages cannot be read in the time left of the scrape, even read twice as fast as measured, with
 * the hosted API's words and a timeout that should be enough, or maxPages when none would be.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ensureTimeFor, MS_PER_PAGE, SPEED_MARGIN } from '../../src/engine/pdf/time-estimate.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { CODES_NOT_RETRIED, PDF_INSUFFICIENT_TIME } from '../../src/spec/errors.js';

const NOW = 1_000_000;
/** A scrape of `timeoutMs` with `leftMs` of it left at NOW. */
const limits = (leftMs: number, timeoutMs = 60_000) => ({ deadline: NOW + leftMs, timeoutMs });
const refusal = (run: () => void): WebwatchError => {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof WebwatchError, String(error));
    return error;
  }
  assert.fail('expected a refusal');
};

describe('the PDF time estimate', () => {
  it('refuses only what cannot fit even at twice the measured speed', () => {
    assert.equal(SPEED_MARGIN, 2);
    // OCR: 1.31 s a page measured, so 0.655 s a page at best: 7 pages need 4.6 s.
    assert.doesNotThrow(() => ensureTimeFor('ocr', 7, 7, limits(4600), { now: NOW }));
    refusal(() => ensureTimeFor('ocr', 7, 7, limits(4500), { now: NOW }));
    // The text layer: 258 pages a second measured, so about 516 at best.
    assert.doesNotThrow(() => ensureTimeFor('text', 500, 500, limits(1000), { now: NOW }));
    refusal(() => ensureTimeFor('text', 600, 600, limits(1000), { now: NOW }));
    // Nothing left to read is never refused, whatever the time.
    assert.doesNotThrow(() => ensureTimeFor('ocr', 0, 40, limits(-10), { now: NOW }));
    assert.ok(MS_PER_PAGE.ocr > 100 * MS_PER_PAGE.text);
  });

  it("counts the document's own speed where its first pages were timed, when faster than the bench's", () => {
    // 3000 blank pages at 0.3 ms a page fit in 2 s; at the bench's 3.9 ms a page they would not.
    refusal(() => ensureTimeFor('text', 2900, 3000, limits(2000), { now: NOW }));
    assert.doesNotThrow(() => ensureTimeFor('text', 2900, 3000, limits(2000), { now: NOW, msPerPage: 0.3 }));
    // A slower document than the bench's is never refused sooner for it.
    assert.doesNotThrow(() => ensureTimeFor('text', 500, 500, limits(1000), { now: NOW, msPerPage: 50 }));
    // Its speed sets the timeout suggested too: 3000 pages at 1 ms, twice as slowly, 6 s.
    const timed = refusal(() => ensureTimeFor('text', 3000, 3000, limits(1000, 1000), { now: NOW, msPerPage: 1 }));
    assert.match(timed.message, / at least 6000ms\.$/);
  });

  it("says so in the hosted API's words, with the code, 408, and a timeout that should be enough", () => {
    const error = refusal(() => ensureTimeFor('ocr', 10, 10, limits(5000), { now: NOW }));
    assert.equal(error.status, 408);
    assert.equal(error.code, PDF_INSUFFICIENT_TIME);
    assert.ok(CODES_NOT_RETRIED.has(error.code!), 'asking again with the same timeout fails the same way');
    // 55 s spent, and 10 pages at half the measured speed (26.2 s): 82 s, in whole seconds.
    assert.equal(
      error.message,
      "Insufficient time to process PDF of 10 pages (by OCR): 5000ms of the scrape's timeout (60000ms) are left. Please increase the timeout parameter in your scrape request to at least 82000ms.",
    );
    const partly = refusal(() => ensureTimeFor('ocr', 4, 30, limits(1000, 1000), { now: NOW }));
    assert.match(
      partly.message,
      /^Insufficient time to process PDF of 30 pages \(4 of them by OCR\): 1000ms of the scrape's timeout \(1000ms\) are left\. .* at least 11000ms\.$/,
    );
    const text = refusal(() => ensureTimeFor('text', 9900, 10_000, limits(2000, 5000), { now: NOW }));
    assert.match(text.message, /^Insufficient time to process PDF of 10000 pages \(9900 of them still to read\): 2000ms .* at least 80000ms\.$/);
  });

  it('past the longest timeout, suggests maxPages instead', () => {
    const error = refusal(() => ensureTimeFor('ocr', 1000, 1000, limits(60_000), { now: NOW }));
    assert.match(
      error.message,
      /^Insufficient time to process PDF of 1000 pages \(by OCR\): 60000ms .* are left\. They need more than the longest timeout \(300000ms\): read fewer pages with the pdf parser's maxPages \(about 114 fit in it\)\.$/,
    );
  });
});
