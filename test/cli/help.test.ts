import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { run } from '../helpers/io.js';

describe('help', () => {
  it('exit-codes on a terminal: plain columns under a header, no box', async () => {
    const result = await run(['help', 'exit-codes'], { tty: true, env: { NO_COLOR: '1' } });
    assert.equal(result.code, 0);
    assert.doesNotMatch(result.stdout, /[┌│]/);
    assert.match(result.stdout, /^code {2}meaning\n/);
    assert.match(result.stdout, /\n130 {3}interrupted \(Ctrl-C\)/);
  });

  it('a subcommand lists the global flags it takes', async () => {
    const result = await run(['monitor', 'get', '--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Global Options:/);
    for (const flag of ['--json', '--api-url <url>', '--local', '--no-pager', '--quiet']) assert.ok(result.stdout.includes(flag), flag);
  });
});
