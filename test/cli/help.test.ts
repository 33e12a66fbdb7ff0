import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { run } from '../helpers/io.js';

describe('help exit-codes on a terminal', () => {
  it('draws a table with a header', async () => {
    const result = await run(['help', 'exit-codes'], { tty: true, env: { NO_COLOR: '1' } });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /┌/);
    assert.match(result.stdout, /│ code │ meaning/);
    assert.match(result.stdout, /│ 130  │ interrupted \(Ctrl-C\)/);
  });
});
