import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CREDITS } from '../../src/spec/limits.js';
import { pageCredits } from '../../src/spec/credits.js';

describe('what a scraped page costs (spec §8)', () => {
  it('1 for a page; a PDF its pages read instead; json extraction and its injection check on top of either', () => {
    assert.equal(pageCredits({}), 1);
    assert.equal(pageCredits({}, 7), 7);
    const json = { formats: [{ type: 'json' as const, prompt: 'prices', checkPromptInjection: true }] };
    assert.equal(pageCredits(json), 1 + CREDITS.jsonExtraction + CREDITS.promptInjectionCheck);
    assert.equal(pageCredits(json, 7), 7 + CREDITS.jsonExtraction + CREDITS.promptInjectionCheck);
  });

  it('changeTracking in json mode is the same extraction, charged once with the json format', () => {
    const both = { formats: ['json' as const, { type: 'changeTracking' as const, modes: ['json' as const] }] };
    assert.equal(pageCredits(both as never), 1 + CREDITS.jsonExtraction);
  });
});
