/** The exported JSON Schema works in a real validator, as editors use it. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { run } from '../helpers/io.js';

async function schema(subject?: string) {
  const result = await run(['schema', ...(subject ? [subject] : [])]);
  assert.equal(result.code, 0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('webwatch schema', () => {
  it('monitor: accepts the examples, one monitor or a list', async () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(await schema());
    const documents = readFileSync(new URL('../../../examples/monitors.yaml', import.meta.url), 'utf8')
      .split(/^---$/m)
      .map((d) => parse(d));
    for (const document of documents) assert.ok(validate(document), JSON.stringify(validate.errors));
    assert.ok(validate(documents), JSON.stringify(validate.errors));
  });

  it('monitor: rejects unknown keys, out-of-range values and a bad target type', async () => {
    const validate = new Ajv2020({ strict: false }).compile(await schema('monitor'));
    const base = { name: 'x', schedule: { cron: '0 * * * *' }, targets: [{ type: 'scrape', urls: ['https://x.com'] }] };
    assert.ok(validate(base));
    assert.ok(!validate({ ...base, nmae: 'x' }));
    assert.ok(!validate({ ...base, retentionDays: 366 }));
    assert.ok(!validate({ ...base, targets: [{ type: 'scrap', urls: ['https://x.com'] }] }));
    assert.ok(!validate({ ...base, targets: [{ type: 'scrape', urls: ['https://x.com'], scrapeOptions: { timeout: 999 } }] }));
  });

  it('scrape-options: describes the scrape options alone', async () => {
    const json = await schema('scrape-options');
    const validate = new Ajv2020({ strict: false }).compile(json);
    assert.ok(validate({ formats: ['markdown', { type: 'screenshot', fullPage: true }], timeout: 30000 }));
    assert.ok(!validate({ formats: ['markdwn'] }));
    assert.ok(!validate({ location: { country: 'usa' } }));
  });

  it('refuses an unknown subject with exit 2', async () => {
    const result = await run(['schema', 'monitors']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Allowed choices are monitor, scrape-options/);
  });
});
