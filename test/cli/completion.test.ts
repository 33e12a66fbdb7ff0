/** Completion scripts: generated from the command tree, committed in completions/, valid shell. */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../helpers/io.js';
import { tempDir, writeFiles } from '../helpers/files.js';

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
      execFileSync(
        'bash',
        [
          '-c',
          `source ${path}; COMP_WORDS=(webwatch ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _webwatch; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n')
        .filter(Boolean);
    assert.deepEqual(complete('mo'), ['monitor']);
    assert.deepEqual(complete('monitor', ''), [
      'validate',
      'apply',
      'diff',
      'create',
      'list',
      'get',
      'export',
      'pause',
      'resume',
      'delete',
      'run',
      'checks',
      'check',
      'history',
      'report',
    ]);
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

/**
 * Names the scripts cannot know come from `webwatch __complete`, run by the shell: a `webwatch`
 * on PATH (this checkout) and an engine home with two monitors, one of them checked once.
 */
describe('completion of monitor names, check ids and flag values', async () => {
  const bin = tempDir();
  const home = tempDir();
  const config = tempDir();
  const launcher = new URL('../../../bin/webwatch.js', import.meta.url).pathname;
  writeFileSync(join(bin, 'webwatch'), `#!/bin/sh\nexec "${process.execPath}" "${launcher}" "$@"\n`);
  chmodSync(join(bin, 'webwatch'), 0o755);
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, WEBWATCH_HOME: home, XDG_CONFIG_HOME: config, WEBWATCH_API_URL: '', WEBWATCH_API_KEY: '' };
  const site = createServer((_request, response) => response.end('<html><body><p>Team plan: $50 a month</p></body></html>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/pricing`;
  const files = writeFiles({
    'monitors.yaml': `name: Acme pricing\nschedule: { cron: "0 * * * *" }\ntargets:\n  - type: scrape\n    urls: ["${url}"]\n---\nname: Acme blog\nschedule: { cron: "0 * * * *" }\ntargets:\n  - type: scrape\n    urls: ["${url}"]\n`,
    'other.yml': 'name: x\n',
  });
  const ww = (args: string[]) => run(args, { env: { WEBWATCH_HOME: home, XDG_CONFIG_HOME: config } });
  assert.equal((await ww(['monitor', 'apply', '-f', join(files, 'monitors.yaml')])).code, 0);
  assert.equal((await ww(['monitor', 'run', 'Acme pricing'])).code, 0);
  site.close();
  const checkId = JSON.parse((await ww(['--json', 'monitor', 'checks', 'Acme pricing'])).stdout)[0].id as string;

  const scripts = Object.fromEntries(
    await Promise.all(
      Object.entries(FILES).map(async ([shell, file]) => {
        const path = join(tempDir(), file);
        writeFileSync(path, await script(shell));
        return [shell, path];
      }),
    ),
  ) as Record<keyof typeof FILES, string>;

  /** What bash offers for the last word, given the words before it (as typed, quotes included). */
  const bash = (...words: string[]) =>
    execFileSync(
      'bash',
      [
        '-c',
        `source ${scripts.bash}; COMP_WORDS=(webwatch ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _webwatch; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8', env, cwd: files },
    )
      .split('\n')
      .filter(Boolean);
  /** zsh's completion system needs a terminal; its functions are replaced by ones that print what they get. */
  const zsh = (...words: string[]) =>
    execFileSync(
      'zsh',
      [
        '-c',
        `compdef() { :; }
_describe() { print -l -- "\${(@P)\${@[-1]}}"; }
compadd() { print -l -- "\${(@P)\${@[-1]}}"; }
compset() { :; }
_files() { print -- "<files\${1:+ $1}>"; }
source ${scripts.zsh}
words=(webwatch "$@"); CURRENT=\${#words}
_webwatch`,
        'zsh',
        ...words,
      ],
      { encoding: 'utf8', env, cwd: files },
    )
      .split('\n')
      .filter(Boolean);
  const fish = (line: string) =>
    execFileSync('fish', ['-c', `source ${scripts.fish}; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8', env, cwd: files })
      .split('\n')
      .filter(Boolean)
      .map((candidate) => candidate.split('\t')[0]);

  it('__complete lists monitors and checks with a description, and is hidden from help', async () => {
    const monitors = await ww(['__complete', 'monitors']);
    assert.deepEqual(monitors.stdout.split('\n').filter(Boolean), ['Acme blog\tactive', 'Acme pricing\tactive']);
    const checks = (await ww(['__complete', 'checks', 'acme PRICING'])).stdout.split('\n').filter(Boolean);
    assert.equal(checks[0], 'latest\tthe newest check');
    assert.match(checks[1]!, new RegExp(`^${checkId}\\t(succeeded|completed) `));
    assert.equal((await ww(['__complete', 'checks', 'Acme blog'])).stdout, '', 'no checks: not even latest');
    assert.doesNotMatch((await run(['help'])).stdout, /__complete/);
    assert.doesNotMatch(await script('bash'), /__complete"|\b__complete\)/);
  });

  it('__complete creates no engine database where there is none, and says nothing when it cannot list', async () => {
    const empty = tempDir();
    const result = await run(['__complete', 'monitors'], { env: { WEBWATCH_HOME: empty } });
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, '', '']);
    assert.equal(existsSync(join(empty, 'webwatch.db')), false);
    const unreachable = await run(['--api-url', 'http://127.0.0.1:9', '--api-key', 'k', '__complete', 'monitors']);
    assert.deepEqual([unreachable.code, unreachable.stdout, unreachable.stderr], [0, '', '']);
  });

  it('bash: monitor names (quoted for the shell), check ids after a monitor, files after -f, values of --format and --status', () => {
    assert.deepEqual(bash('monitor', 'get', ''), ['Acme\\ blog', 'Acme\\ pricing']);
    assert.deepEqual(bash('monitor', 'get', 'Acme\\ p'), ['Acme\\ pricing']);
    assert.deepEqual(bash('--local', 'monitor', 'export', 'Acme\\ blog', ''), ['Acme\\ blog', 'Acme\\ pricing'], 'export takes many');
    assert.deepEqual(bash('monitor', 'check', '"Acme pricing"', ''), ['latest', checkId]);
    assert.deepEqual(bash('monitor', 'check', 'Acme\\ pricing', checkId.slice(0, 4)), [checkId]);
    assert.deepEqual(bash('monitor', 'check', 'Acme\\ pricing', 'latest', '--status', 'ch'), ['changed']);
    assert.deepEqual(bash('monitor', 'apply', '-f', 'mon'), ['monitors.yaml']);
    assert.deepEqual(bash('monitor', 'validate', 'o'), ['other.yml']);
    assert.deepEqual(bash('scrape', '-f', 'markdown,li'), ['markdown,links']);
    assert.ok(bash('scrape', '--format', '').includes('rawHtml'));
    assert.deepEqual(bash('crawl', '--sitemap', 's'), ['skip']);
    assert.deepEqual(bash('agent', 'trace', '-f', ''), [], 'agent trace -f is --follow: the next word is the job id');
    assert.deepEqual(bash('monitor', 'get', 'Acme\\ blog', ''), [], 'get takes one monitor');
  });

  it('zsh: the same candidates', { skip: !hasShell('zsh') && 'zsh is not installed' }, () => {
    assert.deepEqual(zsh('monitor', 'get', ''), ['Acme blog:active', 'Acme pricing:active']);
    assert.deepEqual(zsh('monitor', 'check', '"Acme pricing"', '').slice(0, 1), ['latest:the newest check']);
    assert.match(zsh('monitor', 'check', 'Acme\\ pricing', '')[1]!, new RegExp(`^${checkId}:`));
    assert.deepEqual(zsh('monitor', 'apply', '-f', ''), ['<files>']);
    assert.deepEqual(zsh('crawl', '-o', ''), ['<files -/>']);
    assert.ok(zsh('scrape', '-f', 'markdown,').includes('links'));
    assert.deepEqual(zsh('monitor', 'check', 'a', 'b', '--status', ''), ['new', 'same', 'changed', 'removed', 'error']);
  });

  it('fish: the same candidates', { skip: !hasShell('fish') && 'fish is not installed' }, () => {
    assert.deepEqual(fish('webwatch monitor get '), ['Acme blog', 'Acme pricing']);
    assert.deepEqual(fish("webwatch monitor check 'Acme pricing' ").sort(), [checkId, 'latest'].sort());
    assert.ok(fish('webwatch monitor apply -f ').includes('monitors.yaml'));
    assert.deepEqual(fish('webwatch scrape -f markdown,li'), ['markdown,links']);
    assert.deepEqual(fish('webwatch monitor check a b --status ch'), ['changed']);
    assert.deepEqual(fish('webwatch agent trace -f '), []);
  });
});
