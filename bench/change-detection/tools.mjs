// The tools under test, each run as a user would: webwatch (`monitor apply`, then per step
// `monitor run NAME --json` and `monitor check NAME ID --json`) and urlwatch (url jobs, with
// the html2text filter or raw, its own --urls/--config/--cache). Each `check(step)` returns
// the verdict of every URL (new/same/changed/error, as the tool says it) and the wall time.
// Processes are spawned asynchronously: the pages are served by this same process.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Run a command to its end (or kill it after `timeoutMs`); stdout, stderr, exit code, seconds. */
export function run(command, args, { env, cwd, timeoutMs }) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}${error.message}`, seconds: 0, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    });
  });
}

/** webwatch from one build's bin/webwatch.js, in a home of its own under `work`. */
export async function webwatchTool({ bin, label, work, urls, monitorName, timeoutMs }) {
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    WEBWATCH_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    NO_COLOR: '1',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
  };
  const file = join(work, 'monitor.yaml');
  writeFileSync(
    file,
    `name: ${monitorName}\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls:\n${urls.map((u) => `      - ${u}`).join('\n')}\n`,
  );
  const cli = (args) => run(process.execPath, [bin, ...args], { env, cwd: work, timeoutMs });
  const apply = await cli(['monitor', 'apply', '-f', file, '--yes', '--json']);
  if (apply.code !== 0) throw new Error(`${label}: monitor apply failed (exit ${apply.code}): ${apply.stderr.slice(0, 500)}`);
  return {
    label,
    async check() {
      const started = await cli(['monitor', 'run', monitorName, '--json']);
      if (started.code !== 0)
        return {
          error: `monitor run exit ${started.code}${started.timedOut ? ' (timed out)' : ''}: ${(started.stderr || started.stdout).slice(0, 400)}`,
          seconds: started.seconds,
        };
      const summary = JSON.parse(started.stdout);
      const shown = await cli(['monitor', 'check', monitorName, summary.id, '--json']);
      if (shown.code !== 0) return { error: `monitor check exit ${shown.code}: ${shown.stderr.slice(0, 400)}`, seconds: started.seconds };
      const check = JSON.parse(shown.stdout);
      const verdicts = {};
      for (const page of check.pages ?? []) verdicts[page.url] = { status: page.status, diff: page.diff?.text ?? null, error: page.error ?? null };
      return { verdicts, seconds: started.seconds, checkStatus: summary.status };
    },
  };
}

/** urlwatch with the same URLs as url jobs, `filter: html2text` or none, its files under `work`. */
export async function urlwatchTool({ label, work, urls, filter, timeoutMs }) {
  mkdirSync(work, { recursive: true });
  const jobs = urls.map((url) => `url: ${url}\n${filter ? `filter:\n  - ${filter}\n` : ''}`).join('---\n');
  writeFileSync(join(work, 'urls.yaml'), jobs);
  writeFileSync(
    join(work, 'config.yaml'),
    'display:\n  new: true\n  error: true\n  unchanged: true\nreport:\n  text:\n    details: false\n    footer: false\n  stdout:\n    enabled: true\n    color: false\n',
  );
  const args = ['--urls', join(work, 'urls.yaml'), '--config', join(work, 'config.yaml'), '--cache', join(work, 'cache.db')];
  const env = { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8', TZ: 'UTC' };
  let lastEnded = 0;
  return {
    label,
    async check() {
      // urlwatch keys its snapshots by whole seconds: two runs in one second would compare wrongly.
      const wait = Math.floor(lastEnded / 1000) * 1000 + 1050 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const result = await run('urlwatch', args, { env, cwd: work, timeoutMs });
      lastEnded = Date.now();
      if (result.code !== 0)
        return { error: `urlwatch exit ${result.code}${result.timedOut ? ' (timed out)' : ''}: ${result.stderr.slice(0, 400)}`, seconds: result.seconds };
      const verdicts = {};
      const status = { NEW: 'new', CHANGED: 'changed', UNCHANGED: 'same', ERROR: 'error' };
      for (const line of result.stdout.split('\n')) {
        const match = /^\d+\. (NEW|CHANGED|UNCHANGED|ERROR): (\S+)/.exec(line.trim());
        if (match) verdicts[match[2]] = { status: status[match[1]], diff: null, error: null };
      }
      return { verdicts, seconds: result.seconds };
    },
  };
}
