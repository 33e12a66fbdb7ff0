/**
 * The PDF time estimate on its own (no PDF tools needed): a PDF is refused at once when its
 * pages cannot be read within the scrape's timeout, even read twice as fast as measured, with
 * the hosted API's words and a timeout that should be enough, or maxPages when none would be.
 * The rule is the page count against the timeout: nothing in it depends on the clock or on how
 * fast this machine is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ensureTimeFor, MS_PER_PAGE, SPEED_MARGIN } from '../../src/engine/pdf/time-estimate.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { CODES_NOT_RETRIED, PDF_INSUFFICIENT_TIME } from '../../src/spec/errors.js';

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
  it('refuses only what cannot fit in the timeout even at twice the measured speed', () => {
    assert.equal(SPEED_MARGIN, 2);
    // OCR: 1.31 s a page measured, so 0.655 s a page at best: 7 pages need 4.6 s.
    assert.doesNotThrow(() => ensureTimeFor('ocr', 7, 7, 4600));
    refusal(() => ensureTimeFor('ocr', 7, 7, 4500));
    // The text layer: 258 pages a second measured, so about 516 at best.
    assert.doesNotThrow(() => ensureTimeFor('text', 500, 500, 1000));
    refusal(() => ensureTimeFor('text', 600, 600, 1000));
    // Nothing to read is never refused, whatever the timeout.
    assert.doesNotThrow(() => ensureTimeFor('ocr', 0, 40, 1000));
    assert.ok(MS_PER_PAGE.ocr > 100 * MS_PER_PAGE.text);
  });

  it("says so in the hosted API's words, with the code, 408, and a timeout that should be enough", () => {
    const error = refusal(() => ensureTimeFor('ocr', 10, 10, 5000));
    assert.equal(error.status, 408);
    assert.equal(error.code, PDF_INSUFFICIENT_TIME);
    assert.ok(CODES_NOT_RETRIED.has(error.code!), 'asking again with the same timeout fails the same way');
    // 10 pages at twice the measured speed: 6.55 s; at half of it, 26.2 s: 27 s in whole seconds.
    assert.equal(
      error.message,
      'Insufficient time to process PDF of 10 pages, which requires more processing time than your current timeout allows (5000ms): read by OCR, its pages need 6550ms at the least. Please increase the timeout parameter in your scrape request to at least 27000ms.',
    );
    const partly = refusal(() => ensureTimeFor('ocr', 4, 30, 1000));
    assert.match(
      partly.message,
      /^Insufficient time to process PDF of 30 pages, which requires .* \(1000ms\): 4 of them to read by OCR need 2620ms .* at least 11000ms\.$/,
    );
    const text = refusal(() => ensureTimeFor('text', 9900, 10_000, 5000));
    assert.match(text.message, /^Insufficient time to process PDF of 10000 pages, which .*: the text of 9900 of them need 19187ms .* at least 77000ms\.$/);
  });

  it('past the longest timeout, suggests maxPages instead', () => {
    const error = refusal(() => ensureTimeFor('ocr', 1000, 1000, 60_000));
    assert.match(
      error.message,
      /^Insufficient time to process PDF of 1000 pages, .* They need more than the longest timeout \(300000ms\): read fewer pages with the pdf parser's maxPages \(about 114 fit in it\)\.$/,
    );
  });
});
