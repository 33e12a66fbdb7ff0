import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, it } from 'node:test';
import { readCredentials, saveCredentials } from '../../src/config/credentials.js';
import { tempDir } from '../helpers/files.js';

describe('saved credentials', () => {
  it('are readable by their owner only, in a directory only the owner can enter, even under umask 022', () => {
    const env = { XDG_CONFIG_HOME: tempDir() };
    const previous = process.umask(0o022);
    try {
      const file = saveCredentials(env, { apiKey: 'ww_secret', apiUrl: 'https://watch.example.com/v2' });
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(dirname(file)).mode & 0o777, 0o700);
      assert.deepEqual(readCredentials(env), { apiKey: 'ww_secret', apiUrl: 'https://watch.example.com/v2' });
    } finally {
      process.umask(previous);
    }
  });
});
