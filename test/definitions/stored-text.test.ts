/**
 * Text the store cannot keep as it was given, written with YAML's escapes: a NUL character or
 * half of a surrogate pair in a value or a key is refused by monitor validate, located, as
 * serve refuses it in a request body (test/server/bad-input.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDefinitionFile } from '../../src/core/definitions/parse.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';

const MONITOR = 'schedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\n';

describe('text the store cannot keep, in definition files', () => {
  it('names and locates a NUL character in a value and half a surrogate pair in a key', () => {
    const text = `name: "price \\0 watch"\n${MONITOR}webhook: {url: "https://example.com/h", metadata: {"k\\ud800": 1}}\n`;
    const [monitor] = parseDefinitionFile(text, {}).monitors;
    assert.deepEqual(
      monitor!.problems.map(({ path, line, message }) => ({ path, line, message })),
      [
        { path: ['name'], line: 1, message: 'holds a NUL character (U+0000), which cannot be stored' },
        {
          path: ['webhook', 'metadata', 'k\ud800'],
          line: 4,
          message: 'the key holds half of a surrogate pair (U+D800) without its other half: it is not text',
        },
      ],
    );
  });

  it('takes a whole surrogate pair, written as two escapes or as the character', () => {
    assert.deepEqual(parseDefinitionFile(`name: "falling \\ud83d\\udcc9 📉"\n${MONITOR}`, {}).monitors[0]!.problems, []);
  });

  it('monitor validate exits 2 with the place of each', async () => {
    const dir = writeFiles({ 'm.yaml': `name: "a\\0b"\n${MONITOR}` });
    const result = await run(['monitor', 'validate', `${dir}/m.yaml`]);
    assert.equal(result.code, EXIT.usage);
    assert.match(result.stdout, /m\.yaml:1:7 +name +holds a NUL character/);
  });
});
