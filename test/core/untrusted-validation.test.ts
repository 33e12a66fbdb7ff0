/**
 * Definitions others send are validated on worker threads, within a time and a heap limit: the
 * report is the one the command line's own validation makes, a document past a limit gets a
 * validation error naming it, and the next document is validated as usual.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UntrustedValidation } from '../../src/core/untrusted-validation.js';
import { validateSources } from '../../src/core/validate.js';
import { aliasBomb } from '../helpers/yaml-bomb.js';

const VALID = 'name: Pricing\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/pricing"]}]\n';
const INVALID = 'name: Pricing\nschedule: {cron: "* * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/pricing"]}]\nwebhook: {url: "${SECRET}"}\n';
const sources = (text: string) => [{ file: 'definition.yaml', text }];

describe('validation of untrusted definitions', () => {
  it('answers what the validation on this thread answers, valid or not, from a worker', async () => {
    const validation = new UntrustedValidation();
    try {
      for (const text of [VALID, INVALID]) assert.deepEqual(await validation.validate(sources(text), { env: {} }), validateSources(sources(text), { env: {} }));
      assert.equal(validation.workers, 1, 'validated on a worker, kept for the next one');
    } finally {
      await validation.close();
    }
  });

  it('refuses a document that takes longer than its time limit, with the rule, and validates the next one', { timeout: 60_000 }, async () => {
    // The bomb takes a second or more to parse anywhere; 50 ms is far below it.
    const validation = new UntrustedValidation({ timeMs: 50, heapMb: 512, atOnce: 1 });
    try {
      const report = await validation.validate(sources(aliasBomb()), { env: {} });
      assert.equal(report.valid, false);
      assert.match(report.files[0]!.errors[0]!.message, /^validating this definition took longer than 0\.05 s, the limit for a definition sent to this server/);
      assert.equal(validation.workers, 0, 'its worker was stopped');
    } finally {
      await validation.close();
    }
    const roomy = new UntrustedValidation({ timeMs: 60_000, heapMb: 512, atOnce: 1 });
    try {
      assert.equal((await roomy.validate(sources(VALID), { env: {} })).valid, true);
    } finally {
      await roomy.close();
    }
  });

  it('refuses a document that needs more memory than its worker may use, and carries on with a new worker', { timeout: 60_000 }, async () => {
    const validation = new UntrustedValidation({ timeMs: 60_000, heapMb: 24, atOnce: 1 });
    try {
      const report = await validation.validate(sources(aliasBomb()), { env: {} });
      assert.equal(report.valid, false);
      assert.match(report.files[0]!.errors[0]!.message, /^validating this definition needed more than 24 MB, the limit for a definition sent to this server/);
      assert.equal((await validation.validate(sources(VALID), { env: {} })).valid, true, 'a new worker validates the next one');
    } finally {
      await validation.close();
    }
  });

  it('validates several documents at once on as many workers as allowed, the rest waiting', { timeout: 60_000 }, async () => {
    const validation = new UntrustedValidation({ timeMs: 60_000, heapMb: 512, atOnce: 2 });
    try {
      const reports = await Promise.all(Array.from({ length: 5 }, () => validation.validate(sources(VALID), { env: {} })));
      assert.deepEqual(
        reports.map((report) => report.valid),
        [true, true, true, true, true],
      );
      assert.ok(validation.workers <= 2, `${validation.workers} workers`);
    } finally {
      await validation.close();
    }
  });
});
