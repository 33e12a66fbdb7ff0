/** Completion scripts: generated from the command tree, committed in completions/, valid shell. */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../helpers/io.js';
import { tempDir } from '../helpers/files.js';

const committed = (name: string) => readFileSync(new URL(`../../../completions/${name}`, import.meta.url), 'utf8');
const FILES = { bash: 'webwatch.bash', zsh: '_webwatch', fish: 'webwatch.fish' } as const;

async function script(shell: string) {
  const result = await run(['completion', shell]);
  assert.equal(result.code, 0);
  return result.stdout;
}

const hasShell = (shell: string) => spawnSync(shell, ['-c', 'true']).status === 0;

describe('webwatch completion', () => {
  for (const [shell, file] of Object.entries(FILES)) {
    it(`${shell}: the committed completions/${file} is what the command prints (npm run completions updates it)`, async () => {
      assert.equal(committed(file), await script(shell));
    });
  }

  it('bash: offers commands, subcommands, flags and argument choices', async () => {
    const path = join(tempDir(), 'webwatch.bash');
    writeFileSync(path, await script('bash'));
    const complete = (...words: string[]) =>
      execFileSync('bash', ['-c', `source ${path}; COMP_WORDS=(webwatch ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _webwatch; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' })
        .trim().split('\n').filter(Boolean);
    assert.deepEqual(complete('mo'), ['monitor']);
    assert.deepEqual(complete('monitor', ''), ['validate', 'apply', 'diff', 'create', 'list', 'get', 'export', 'pause', 'resume', 'delete', 'run', 'checks', 'check']);
    assert.ok(complete('monitor', 'apply', '--').includes('--prune'));
    assert.ok(complete('monitor', 'validate', '--p').includes('--print'));
    assert.deepEqual(complete('schema', ''), ['monitor', 'scrape-options']);
    assert.deepEqual(complete('--json', 'completion', 'z'), ['zsh']);
  });

  it('zsh: the script parses', { skip: !hasShell('zsh') && 'zsh is not installed' }, async () => {
    const path = join(tempDir(), '_webwatch');
    writeFileSync(path, await script('zsh'));
    execFileSync('zsh', ['-n', path]);
  });

  it('fish: the script parses', { skip: !hasShell('fish') && 'fish is not installed' }, async () => {
    const path = join(tempDir(), 'webwatch.fish');
    writeFileSync(path, await script('fish'));
    execFileSync('fish', ['--no-execute', path]);
  });

  it('refuses an unknown shell with exit 2', async () => {
    const result = await run(['completion', 'powershell']);
    assert.equal(result.code, 2);
  });
});
