/**
 * The README's walk-through, "Your first monitor, step by step", run as written: step 1 (Node
 * and the global link) in one fresh shell with the system's PATH, then the commands of the other
 * sh blocks, in order, each through sh, with the PATH step 1 left and no stand-ins, from a
 * project root holding a copy of examples/site, with a temporary HOME. The commands are read from the README itself, so the
 * section and this test cannot drift apart.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { tempDir } from '../helpers/files.js';
import { run, type Captured } from '../helpers/io.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HEADING = '## Your first monitor, step by step';
/** The PATH of a fresh login shell on Debian, with the system's Node only. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The section, from its heading to the next heading of the same level. */
function section(readme: string): string {
  const start = readme.indexOf(`\n${HEADING}\n`);
  assert.ok(start >= 0, `the README has no "${HEADING}" section`);
  const end = readme.indexOf('\n## ', start + HEADING.length + 2);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The contents of the fenced blocks of one language, in order. */
function fencedBlocks(text: string, language: string): string[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === language).map((m) => m[2]!);
}

/** A command line without its comment: `#` starts one outside quotes, after a blank or at the start. */
function withoutComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

function commands(text: string): string[] {
  return fencedBlocks(text, 'sh')
    .flatMap((block) => block.replace(/\\\n/g, ' ').split('\n'))
    .map((line) => withoutComment(line).trim())
    .filter(Boolean);
}

interface Job {
  command: string;
  child: ChildProcess;
  output: () => string;
  ended: Promise<void>;
}

/** A command the README runs with `&`: its own process group, so that stopping it stops its children. */
function startJob(command: string, cwd: string, env: Record<string, string>): Job {
  const child = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { command, child, output: () => output, ended };
}

const running = (job: Job) => job.child.exitCode === null && job.child.signalCode === null;

async function stopJob(job: Job): Promise<void> {
  if (!running(job)) return;
  process.kill(-job.child.pid!, 'SIGTERM');
  const timer = setTimeout(() => running(job) && process.kill(-job.child.pid!, 'SIGKILL'), 5_000);
  await job.ended;
  clearTimeout(timer);
}

async function waitForOutput(job: Job, pattern: RegExp, ms = 10_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(job.output());
    if (match) return match;
    if (!running(job) || Date.now() > deadline) throw new Error(`${job.command}: no ${pattern} in its output:\n${job.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function shell(command: string, cwd: string, env: Record<string, string>, ms = 60_000): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`${command}: still running after ${ms} ms\n${stderr}`))), ms);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code: code ?? -1, stdout, stderr })));
  });
}

/** The port variable each background script of the walk-through reads (README: "SITE_PORT ... HOOK_PORT"). */
const PORT_VARIABLES: [RegExp, string][] = [
  [/serve\.mjs/, 'SITE_PORT'],
  [/receive-webhook\.mjs/, 'HOOK_PORT'],
];

describe('the README walk-through', () => {
  const jobs: Job[] = [];
  /** Takes step 1's link away again. */
  let uninstall = async () => undefined;
  after(async () => {
    for (const job of jobs) await stopJob(job);
    await uninstall();
  });

  it('goes from nothing to a webhook about a changed price, as written', { timeout: 180_000 }, async () => {
    const text = section(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const shippedMonitor = readFileSync(join(ROOT, 'examples', 'site', 'monitor.yaml'), 'utf8');
    assert.ok(
      fencedBlocks(text, 'yaml').includes(shippedMonitor.replace(/^(#.*\n)+/, '')),
      'the README shows examples/site/monitor.yaml as shipped (its leading comments aside)',
    );

    const home = tempDir();
    const project = tempDir();
    cpSync(join(ROOT, 'examples', 'site'), join(project, 'examples', 'site'), { recursive: true });
    // A fresh shell as a reader has one: the system's PATH (whatever Node it holds), a new HOME,
    // nothing of this test's Node. Only npm's cache is this machine's, so that npx finds the Node it
    // fetched before instead of fetching it again.
    const env: Record<string, string> = { PATH: SYSTEM_PATH, HOME: home, npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm') };
    const engineHome = join(home, '.local', 'share', 'webwatch');

    // Step 1, its lines in one shell (its export holds for the lines after it), from the checkout.
    const [install, ...rest] = fencedBlocks(text, 'sh');
    assert.match(install!, /npm install -g \. --ignore-scripts/, 'step 1 links the command');
    const installed = await shell(`set -e\n${install}\nprintf '\\nPATH=%s\\n' "$PATH"`, ROOT, env, 120_000);
    assert.equal(installed.code, 0, `step 1 as written:\nstdout: ${installed.stdout}\nstderr: ${installed.stderr}`);
    env.PATH = /\nPATH=(.*)\n$/.exec(installed.stdout)![1]!;
    uninstall = () => shell('npm uninstall -g webwatch', ROOT, env).then(() => undefined);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    assert.match(installed.stdout, new RegExp(`^${version.replace(/\./g, '\\.')}$`, 'm'), 'webwatch --version answers from the PATH step 1 left');
    const found = await shell('command -v webwatch; node --version', project, env);
    assert.match(found.stdout, /^\/.*\/webwatch\nv(2[2-9]|[3-9]\d)\./, `webwatch and a Node of 22 or newer are on the PATH: ${found.stdout}`);

    const results: (Captured & { command: string })[] = [];
    let onTerminal: Captured | undefined;
    for (const command of commands(rest.map((block) => `\`\`\`sh\n${block}\`\`\`\n`).join(''))) {
      const background = /^(.*?)\s*&$/.exec(command);
      if (background) {
        // A port of 0 makes the script take a free one and print it; later commands get that one,
        // as a reader would export SITE_PORT and HOOK_PORT when 8080 and 8081 are taken.
        const job = startJob(background[1]!, project, { ...env, SITE_PORT: '0', HOOK_PORT: '0' });
        jobs.push(job);
        const variable = PORT_VARIABLES.find(([pattern]) => pattern.test(command))?.[1];
        assert.ok(variable, `unexpected background command: ${command}`);
        env[variable] = (await waitForOutput(job, /http:\/\/127\.0\.0\.1:(\d+)\//))[1]!;
        continue;
      }
      const kill = /^kill((?:\s+%\d+)+)$/.exec(command);
      if (kill) {
        // Job numbers as the reader's shell gives them: the background commands in order.
        for (const number of kill[1]!
          .trim()
          .split(/\s+/)
          .map((spec) => Number(spec.slice(1)))) {
          const job = jobs[number - 1];
          assert.ok(job, `${command}: there is no job %${number}`);
          await stopJob(job);
        }
        continue;
      }
      const result = await shell(command, project, env);
      assert.equal(result.code, 0, `${command}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
      results.push({ command, ...result });
      if (command === 'webwatch monitor check "Acme pricing" latest') {
        // The README describes this at a terminal, where the diffs are printed; piped, rows only.
        onTerminal = await run(['monitor', 'check', 'Acme pricing', 'latest'], { tty: true, env: { HOME: home, WEBWATCH_HOME: engineHome, NO_COLOR: '1' } });
      }
    }

    const [site, receiver] = jobs;
    assert.match(site?.command ?? '', /serve\.mjs/);
    assert.match(receiver?.command ?? '', /receive-webhook\.mjs/);
    for (const job of jobs) assert.equal(running(job), false, `${job.command} was stopped by the README's kill`);
    const siteUrl = `http://127.0.0.1:${env.SITE_PORT}`;
    const only = (pattern: RegExp) => {
      const matching = results.filter((result) => pattern.test(result.command));
      assert.equal(matching.length, 1, `one command matches ${pattern}`);
      return matching[0]!;
    };

    assert.equal(only(/^webwatch monitor validate /).stderr, '✓ 1 monitor in 1 file valid\n');
    assert.match(only(/^webwatch monitor apply /).stdout, /^\+ create\s+Acme pricing\s+\(/m);
    assert.ok(existsSync(join(engineHome, 'webwatch.db')), 'the engine database is in the temporary HOME');

    const runs = results.filter((result) => /^webwatch monitor run /.test(result.command));
    assert.equal(runs.length, 2);
    assert.match(runs[0]!.stdout, /^check \S+ completed: 0 changed, 2 new, 0 removed, 0 same, 0 errors \(2 pages\)\n$/);
    assert.match(runs[1]!.stdout, /^check \S+ completed: 1 changed, 0 new, 0 removed, 1 same, 0 errors \(2 pages\)\n$/);
    for (const { stderr } of runs) assert.doesNotMatch(stderr, /warning/, 'every notification was delivered');
    const checkIds = runs.map((result) => result.stdout.split(' ')[1]);

    const history = only(/^webwatch monitor checks /)
      .stdout.trim()
      .split('\n')
      .map((row) => row.split('\t'));
    assert.deepEqual(
      history.map((row) => [row[0], row[4]]),
      [
        [checkIds[1], '1/0/0/1/0'],
        [checkIds[0], '0/2/0/0/0'],
      ],
    );

    assert.equal(only(/^webwatch monitor check .* latest$/).stdout, `changed\t200\tyes\t${siteUrl}/pricing.html\t\nsame\t200\t\t${siteUrl}/blog/\t\n`);
    assert.ok(onTerminal, 'the README reads the latest check');
    assert.match(onTerminal.stdout, /\n-\$29\/month\n\+\$35\/month\n/);
    assert.match(onTerminal.stdout, /judgment: meaningful \(high\): .*an amount changed: \$29\/month → \$35\/month/);

    const received = receiver!.output();
    const events = received.split('\n').filter((line) => line.startsWith('monitor.'));
    assert.deepEqual(events, [
      `monitor.page  Acme pricing  new  ${siteUrl}/pricing.html  (meaningful)`,
      `monitor.page  Acme pricing  new  ${siteUrl}/blog/  (not meaningful)`,
      'monitor.check.completed  Acme pricing  check completed: 0 changed, 2 new, 0 removed, 0 same, 0 errors',
      `monitor.page  Acme pricing  changed  ${siteUrl}/pricing.html  (meaningful)`,
      'monitor.check.completed  Acme pricing  check completed: 1 changed, 0 new, 0 removed, 1 same, 0 errors',
    ]);
    assert.match(received, /\n-\$29\/month\n\+\$35\/month\n/, 'the webhook carried the diff');

    // The checks read the served copy: two requests for each page.
    const requests = site!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('GET '));
    assert.deepEqual(requests.sort(), ['GET /blog/ 200', 'GET /blog/ 200', 'GET /pricing.html 200', 'GET /pricing.html 200']);

    // The clean-up put the old price back in the copy and deleted the monitor.
    const copy = join(project, 'examples', 'site');
    assert.equal(readFileSync(join(copy, 'pricing.html'), 'utf8'), readFileSync(join(ROOT, 'examples', 'site', 'pricing.html'), 'utf8'));
    assert.equal(existsSync(join(copy, 'pricing.html.bak')), false);
    assert.match(readFileSync(join(ROOT, 'examples', 'site', 'pricing.html'), 'utf8'), /\$29\/month/, 'the checkout itself was never edited');
    const left = await run(['monitor', 'list', '--json'], { env: { HOME: home, WEBWATCH_HOME: engineHome } });
    assert.deepEqual(JSON.parse(left.stdout), []);
  });
});
