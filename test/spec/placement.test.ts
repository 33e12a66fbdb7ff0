/** A field written at the wrong level is an unknown field that says where it belongs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatPath } from '../../src/spec/issues.js';
import { validateCrawlOptions, validateMonitorRequest, validateMonitorUpdate } from '../../src/spec/schemas.js';
import { validMonitor } from '../helpers/monitors.js';

function messages(result: { ok: true } | { ok: false; problems: { path: (string | number)[]; message: string }[] }) {
  return result.ok ? {} : Object.fromEntries(result.problems.map((p) => [formatPath(p.path), p.message]));
}

const crawl = (extra: Record<string, unknown>) => ({ type: 'crawl', url: 'https://example.com/docs', ...extra });

describe('misplaced fields', () => {
  it('a near spelling of a field allowed here comes before where the field belongs elsewhere', () => {
    const found = messages(
      validateMonitorRequest(
        validMonitor({
          targets: [{ type: 'scrape', url: 'https://example.com/', scrapeOptions: { format: ['markdown'] } }],
        }),
        'file',
      ),
    );
    assert.match(found['targets[0].url']!, /^unknown field "url" \(did you mean "urls"\?\), or it belongs in webhook$/);
    assert.match(found['targets[0].scrapeOptions.format']!, /^unknown field "format" \(did you mean "formats"\?\), or it belongs /);
  });

  it('one level down: a crawl option beside crawlOptions, a scrape option beside scrapeOptions', () => {
    const found = messages(
      validateMonitorRequest(
        validMonitor({
          targets: [crawl({ limit: 10 }), { type: 'scrape', urls: ['https://example.com/'], formats: ['markdown'] }],
        }),
        'file',
      ),
    );
    assert.deepEqual(found, {
      'targets[0].limit': 'unknown field "limit": it belongs in targets[0].crawlOptions',
      'targets[1].formats': 'unknown field "formats": it belongs in targets[1].scrapeOptions',
    });
  });

  it('one level down through a list: a target field at the top says it belongs in each target', () => {
    const found = messages(validateMonitorRequest(validMonitor({ urls: ['https://example.com/'] }), 'file'));
    assert.equal(found.urls, 'unknown field "urls": it belongs in each item of targets');
  });

  it('one level up: a monitor field inside a target, an e-mail field beside email', () => {
    const found = messages(
      validateMonitorRequest(
        validMonitor({
          targets: [crawl({ goal: 'price changes' })],
          notification: { recipients: ['a@example.com'] },
        }),
        'file',
      ),
    );
    assert.equal(found['targets[0].goal'], 'unknown field "goal": it belongs at the top level');
    assert.equal(found['notification.recipients'], 'unknown field "recipients": it belongs in notification.email');
    const nested = messages(validateMonitorRequest(validMonitor({ webhook: { url: 'https://example.com/hook', headers: {}, schedule: {} } }), 'file'));
    assert.equal(nested['webhook.schedule'], 'unknown field "schedule": it belongs at the top level');
  });

  it('a sibling: a scrape option written in crawlOptions belongs in the scrapeOptions beside it', () => {
    const found = messages(validateMonitorRequest(validMonitor({ targets: [crawl({ crawlOptions: { maxDepth: 2, onlyMainContent: true } })] }), 'file'));
    assert.deepEqual(found, { 'targets[0].crawlOptions.onlyMainContent': 'unknown field "onlyMainContent": it belongs in targets[0].scrapeOptions' });
  });

  it("the target's own type decides: a crawl field on a scrape target is not placed in a crawl target", () => {
    const found = messages(validateMonitorRequest(validMonitor({ targets: [{ type: 'scrape', urls: ['https://example.com/'], maxDepth: 2 }] }), 'file'));
    assert.equal(found['targets[0].maxDepth'], 'unknown field "maxDepth"');
  });

  it('a field known nowhere near keeps the plain message, or its "did you mean"', () => {
    const found = messages(validateMonitorRequest(validMonitor({ colour: 'blue', schedul: {} }), 'file'));
    assert.equal(found.colour, 'unknown field "colour"');
    assert.equal(found.schedul, 'unknown field "schedul" (did you mean "schedule"?)');
  });

  it('on the wire and in a PATCH body as well', () => {
    const wire = messages(validateMonitorRequest(validMonitor({ targets: [crawl({ maxDepth: 1 })] }), 'wire'));
    assert.equal(wire['targets[0].maxDepth'], 'unknown field "maxDepth": it belongs in targets[0].crawlOptions');
    const patch = messages(validateMonitorUpdate({ cron: '0 * * * *' }, 'wire'));
    assert.equal(patch.cron, 'unknown field "cron": it belongs in schedule');
    // Options given on their own have no level above to point at.
    assert.deepEqual(messages(validateCrawlOptions({ formats: ['markdown'] }, 'file')), { formats: 'unknown field "formats"' });
  });
});
