import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interpolate } from '../../src/core/definitions/interpolate.js';

const env = { TOKEN: 's3cret', EMPTY: '', HOST: 'example.com' };

describe('${VAR} interpolation', () => {
  it('replaces variables anywhere in the text', () => {
    assert.deepEqual(interpolate('Bearer ${TOKEN}', env), { ok: true, value: 'Bearer s3cret', changed: true });
    assert.deepEqual(interpolate('https://${HOST}/a/${HOST}', env), { ok: true, value: 'https://example.com/a/example.com', changed: true });
  });

  it('uses the default when the variable is unset or empty', () => {
    assert.equal((interpolate('${MISSING:-fallback}', env) as { value: string }).value, 'fallback');
    assert.equal((interpolate('${EMPTY:-fallback}', env) as { value: string }).value, 'fallback');
    assert.equal((interpolate('${TOKEN:-fallback}', env) as { value: string }).value, 's3cret');
    assert.equal((interpolate('${MISSING:-}', env) as { value: string }).value, '');
    assert.equal((interpolate('${MISSING:-a:b-c}', env) as { value: string }).value, 'a:b-c');
  });

  it('keeps a set but empty variable without a default', () => {
    assert.equal((interpolate('x${EMPTY}y', env) as { value: string }).value, 'xy');
  });

  it('names an unset variable', () => {
    assert.deepEqual(interpolate('${NOPE}', env), {
      ok: false,
      message: 'environment variable NOPE is not set (write ${NOPE:-default} to give a default)',
    });
  });

  it('rejects malformed references', () => {
    assert.match((interpolate('${TOKEN', env) as { message: string }).message, /not closed/);
    assert.match((interpolate('${1BAD}', env) as { message: string }).message, /not a variable reference/);
    assert.match((interpolate('${}', env) as { message: string }).message, /not a variable reference/);
    assert.match((interpolate('${A-b}', env) as { message: string }).message, /not a variable reference/);
  });

  it('writes a literal ${ as $${ and does not scan substituted text again', () => {
    assert.equal((interpolate('$${TOKEN}', env) as { value: string }).value, '${TOKEN}');
    assert.equal((interpolate('${X}', { X: '${TOKEN}' }) as { value: string }).value, '${TOKEN}');
    assert.deepEqual(interpolate('no variables, $ and {} alone', env), { ok: true, value: 'no variables, $ and {} alone', changed: false });
  });
});
