/**
 * The CI recipes of the documentation (docs/ci.md), as the files under examples/ci/ that it includes: valid YAML,
 * and their scripts run in the order a pipeline runs them (pull request, then merge) against
 * `webwatch serve` on 127.0.0.1, with `webwatch` on the PATH and stand-ins for npm, gh and curl.
 * Also the composite action (action.yml): its command step, run the same way.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, beforeEach, describe, it } from 'node:test';
import { parseDocument } from 'yaml';
import { documentation } from '../helpers/docs.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GITHUB_WORKFLOW = 'examples/ci/.github/workflows/monitors.yml';
const GITLAB_PIPELINE = 'examples/ci/.gitlab-ci.yml';
/** README.md and docs/*.md: the recipes may sit on any page. */
const DOCS = documentation();

function yamlFile(path: string): Record<string, unknown> {
  const document = parseDocument(readFileSync(join(ROOT, path), 'utf8'), { uniqueKeys: true });
  assert.deepEqual(
    document.errors.map((error) => error.message),
    [],
    `${path} is not valid YAML`,
  );
  return document.toJS() as Record<string, unknown>;
}

const PRICING = `name: Pricing
schedule: {cron: "0 * * * *"}
targets: [{type: scrape, urls: [https://example.com/pricing]}]
`;
const NEWS = `name: News
schedule: {text: daily at 9 am, timezone: Europe/Paris}
targets: [{type: scrape, urls: [https://example.com/news]}]
`;
const OLD = `name: Old
schedule: {cron: "0 * * * *"}
targets: [{type: scrape, urls: [https://example.com/old]}]
`;

/**
 * Stand-ins on the PATH: `webwatch` is this checkout's launcher; npm records its install; gh
 * and curl keep the comment they would post (gh --edit-last fails while there is none, as gh does).
 */
function stubs(): { bin: string; log: () => string[]; comments: () => string[] } {
  const dir = tempDir();
  const bin = join(dir, 'bin');
  const comments = join(dir, 'comments');
  mkdirSync(bin);
  mkdirSync(comments);
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const log = join(dir, 'log');
  writeFileSync(log, '');
  script('webwatch', `exec "${process.execPath}" "${join(ROOT, 'bin', 'webwatch.js')}" "$@"`);
  script('npm', `echo "npm $*" >> "${log}"`);
  script(
    'gh',
    `echo "gh $*" >> "${log}"
body=""; edit=""
while [ $# -gt 0 ]; do case "$1" in --body-file) body="$2"; shift ;; --edit-last) edit=1 ;; esac; shift; done
last=$(ls "${comments}" | sort -n | tail -n 1)
if [ -n "$edit" ]; then
  [ -n "$last" ] || { echo "no comments found for current user" >&2; exit 1; }
  cp "$body" "${comments}/$last"
else
  cp "$body" "${comments}/$(( \${last:-0} + 1 ))"
fi`,
  );
  script(
    'curl',
    `echo "curl $*" >> "${log}"
while [ $# -gt 0 ]; do case "$1" in --data-urlencode) file="\${2#body@}"; shift ;; esac; shift; done
last=$(ls "${comments}" | sort -n | tail -n 1)
cp "$file" "${comments}/$(( \${last:-0} + 1 ))"`,
  );
  return {
    bin,
    log: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    comments: () =>
      readdirSync(comments)
        .sort((a, b) => Number(a) - Number(b))
        .map((name) => readFileSync(join(comments, name), 'utf8')),
  };
}

/** A checkout of the monitors repository, fresh for each job as on a new runner. */
const checkout = (files: Record<string, string>): string => writeFiles(files);

interface StepResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a script as the runners do: bash, stopping at the first failing command, pipelines included. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<StepResult> {
  const file = join(tempDir(), 'step.sh');
  writeFileSync(file, script);
  // Asynchronous: the API it talks to is served by this very process.
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const baseEnv = (bin: string) => ({
  PATH: `${bin}:${process.env.PATH ?? ''}`,
  HOME: process.env.HOME ?? tempDir(),
  WEBWATCH_HOME: tempDir(),
  XDG_CONFIG_HOME: tempDir(),
});

/** `${{ name }}` from a fixed context; anything else fails the test, so the recipe stays plain. */
function githubExpressions(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, name: string) => {
    assert.ok(name in context, `unknown expression \${{ ${name} }}`);
    return context[name]!;
  });
}

/** A job's `if`: comparisons of context values with quoted strings, joined by &&. */
function githubCondition(condition: string | undefined, context: Record<string, string>): boolean {
  if (condition === undefined) return true;
  return condition.split('&&').every((part) => {
    const match = /^\s*([\w.]+)\s*==\s*'([^']*)'\s*$/.exec(part);
    assert.ok(match && match[1]! in context, `unsupported condition: ${part}`);
    return context[match[1]!] === match[2];
  });
}

interface GithubJob {
  if?: string;
  needs?: string | string[];
  env?: Record<string, string>;
  steps: { uses?: string; run?: string; id?: string; env?: Record<string, string> }[];
}

interface JobRun extends StepResult {
  job: string;
  outputs: Record<string, Record<string, string>>;
  summary: string;
}

/** Runs the workflow for one event: its jobs in order of `needs`, skipped when a needed job failed. */
async function runWorkflow(
  workflow: { env?: Record<string, string>; jobs: Record<string, GithubJob> },
  files: Record<string, string>,
  bin: string,
  context: Record<string, string>,
): Promise<Map<string, JobRun | 'skipped'>> {
  const results = new Map<string, JobRun | 'skipped'>();
  const pending = Object.entries(workflow.jobs);
  while (pending.length > 0) {
    const index = pending.findIndex(([, job]) => [job.needs ?? []].flat().every((need) => results.has(need)));
    assert.ok(index >= 0, 'the jobs wait on each other');
    const [name, job] = pending.splice(index, 1)[0]!;
    const needs = [job.needs ?? []].flat();
    if (
      !githubCondition(job.if, context) ||
      needs.some((need) => {
        const r = results.get(need);
        return r === 'skipped' || r!.code !== 0;
      })
    ) {
      results.set(name, 'skipped');
      continue;
    }
    const workspace = checkout(files);
    const runnerTemp = tempDir();
    const summary = join(runnerTemp, 'summary.md');
    writeFileSync(summary, '');
    const jobRun: JobRun = { job: name, code: 0, stdout: '', stderr: '', outputs: {}, summary: '' };
    for (const step of job.steps) {
      if (step.run === undefined) continue;
      const output = join(runnerTemp, `output-${Math.random()}`);
      writeFileSync(output, '');
      const env = Object.fromEntries(
        Object.entries({ ...workflow.env, ...job.env, ...step.env }).map(([key, value]) => [key, githubExpressions(String(value), context)]),
      );
      const result = await bash(githubExpressions(step.run, context), workspace, {
        ...baseEnv(bin),
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: workspace,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_TEMP: runnerTemp,
        GITHUB_EVENT_NAME: context['github.event_name']!,
        GITHUB_REF: context['github.ref']!,
        ...env,
      });
      jobRun.stdout += result.stdout;
      jobRun.stderr += result.stderr;
      if (step.id)
        jobRun.outputs[step.id] = Object.fromEntries(
          readFileSync(output, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
        );
      if (result.code !== 0) {
        jobRun.code = result.code;
        break;
      }
    }
    jobRun.summary = readFileSync(summary, 'utf8');
    results.set(name, jobRun);
  }
  return results;
}

/** GitLab's `rules: if:` expressions: `$VAR == "text"` or `$VAR == $OTHER`, joined by &&. */
function gitlabCondition(condition: string, variables: Record<string, string>): boolean {
  const value = (token: string) => {
    if (token.startsWith('$')) return variables[token.slice(1)] ?? '';
    assert.match(token, /^"[^"]*"$/, `unsupported value: ${token}`);
    return token.slice(1, -1);
  };
  return condition.split('&&').every((part) => {
    const match = /^\s*(\$\w+|"[^"]*")\s*==\s*(\$\w+|"[^"]*")\s*$/.exec(part);
    assert.ok(match, `unsupported condition: ${part}`);
    return value(match[1]!) === value(match[2]!);
  });
}

interface GitlabJob {
  stage: string;
  rules?: { if: string; changes?: string[] }[];
  script: string[];
  before_script?: string[];
}

/** Runs the pipeline for one set of predefined variables: stage by stage; a failed stage stops it. */
async function runPipeline(
  pipeline: Record<string, unknown>,
  files: Record<string, string>,
  bin: string,
  variables: Record<string, string>,
): Promise<Map<string, StepResult | 'skipped'>> {
  const stages = pipeline.stages as string[];
  const defaults = (pipeline.default ?? {}) as { before_script?: string[] };
  const jobs = Object.entries(pipeline).filter(
    (entry): entry is [string, GitlabJob] => typeof entry[1] === 'object' && entry[1] !== null && 'script' in entry[1],
  );
  const all = { ...(pipeline.variables as Record<string, string>), ...variables };
  const results = new Map<string, StepResult | 'skipped'>();
  let failed = false;
  for (const stage of stages) {
    for (const [name, job] of jobs.filter(([, j]) => j.stage === stage)) {
      // `changes:` is taken as met: every scenario here changes monitors/.
      const runs = !failed && (job.rules === undefined || job.rules.some((rule) => gitlabCondition(rule.if, all)));
      if (!runs) {
        results.set(name, 'skipped');
        continue;
      }
      const script = [...(job.before_script ?? defaults.before_script ?? []), ...job.script].join('\n');
      results.set(name, await bash(script, checkout(files), { ...baseEnv(bin), CI: 'true', GITLAB_CI: 'true', ...all }));
    }
    failed ||= [...results.values()].some((result) => result !== 'skipped' && result.code !== 0);
  }
  return results;
}

describe('the CI recipes', () => {
  let api: ServingWebwatch;
  let key: string;
  const remote = () => ({ WEBWATCH_API_URL: api.url, WEBWATCH_API_KEY: key });
  const monitors = async () => {
    const result = await run(['monitor', 'list', '--json'], { env: remote() });
    return Object.fromEntries((JSON.parse(result.stdout) as { name: string; schedule: { cron: string } }[]).map((m) => [m.name, m.schedule.cron]));
  };

  before(async () => {
    api = await serveWebwatch();
  });
  after(async () => {
    await api.stop();
  });
  // Each recipe starts from the same monitors on a fresh team: Pricing to update, Old to prune.
  beforeEach(async () => {
    key = (await api.keys.create(`team-${Math.random().toString(36).slice(2)}`, new Date())).key;
    const seed = await run(['monitor', 'apply', '-f', writeFiles({ 'pricing.yaml': PRICING, 'old.yaml': OLD })], { env: remote() });
    assert.equal(seed.code, 0, seed.stderr);
  });

  const repository = {
    'monitors/pricing.yaml': PRICING.replace('0 * * * *', '*/30 * * * *'),
    'monitors/news.yaml': NEWS,
  };

  it('are in the documentation as they are in examples/ci/, and hidden from `monitor validate examples/`', async () => {
    for (const path of [GITHUB_WORKFLOW, GITLAB_PIPELINE, 'action.yml']) yamlFile(path);
    for (const path of [GITHUB_WORKFLOW, GITLAB_PIPELINE]) {
      assert.ok(DOCS.includes(`\`\`\`yaml\n${readFileSync(join(ROOT, path), 'utf8')}\`\`\``), `the documentation includes ${path} as it is`);
    }
    const examples = await run(['monitor', 'validate', '--json', join(ROOT, 'examples')]);
    assert.equal(examples.code, 0);
    assert.ok((JSON.parse(examples.stdout).files as { file: string }[]).every(({ file }) => !file.includes(`${join('examples', 'ci')}`)));
  });

  it('GitHub Actions: a pull request gets annotations or its plan as a comment; the merge applies it', async () => {
    const workflow = yamlFile(GITHUB_WORKFLOW) as unknown as Parameters<typeof runWorkflow>[0];
    const { bin, log, comments } = stubs();
    const context = (event: 'pull_request' | 'push', apiKey = key) => ({
      'github.event_name': event,
      'github.ref': event === 'push' ? 'refs/heads/main' : 'refs/pull/7/merge',
      'github.token': 'gh-token',
      'github.event.pull_request.number': '7',
      'vars.WEBWATCH_API_URL': api.url,
      'secrets.WEBWATCH_API_KEY': apiKey,
    });
    const job = (results: Map<string, JobRun | 'skipped'>, name: string) => {
      const result = results.get(name);
      assert.ok(result && result !== 'skipped', `job ${name} ran`);
      return result;
    };

    // An invalid field: the validate job fails with an annotation on its line, and nothing is planned.
    const invalid = await runWorkflow(
      workflow,
      { ...repository, 'monitors/news.yaml': NEWS.replace('daily at 9 am', 'every 2 minutes') },
      bin,
      context('pull_request'),
    );
    assert.equal(job(invalid, 'validate').code, 2);
    assert.match(
      job(invalid, 'validate').stdout,
      /^::error file=monitors\/news\.yaml,line=2,col=18::schedule\.text: every 2 minutes is more often than the minimum interval of 5 minutes$/m,
    );
    assert.equal(invalid.get('plan'), 'skipped');
    assert.equal(invalid.get('apply'), 'skipped');

    // The pull request: the plan is posted, and nothing changes yet.
    {
      const before = await monitors();
      const opened = await runWorkflow(workflow, repository, bin, context('pull_request'));
      assert.equal(job(opened, 'validate').code, 0);
      const plan = job(opened, 'plan');
      assert.equal(plan.code, 0, plan.stderr);
      assert.deepEqual(plan.outputs.plan, { changes: 'true' });
      assert.equal(opened.get('apply'), 'skipped');
      const [comment] = comments();
      assert.match(comment!, /^### webwatch plan: 1 to create, 1 to update, 1 to delete, 0 unchanged\n/);
      assert.match(comment!, /^\| update \| Pricing \| `[0-9a-f-]{36}` \| 1 field \|$/m);
      assert.match(comment!, /^\| `schedule\.cron` \| `"0 \* \* \* \*"` \| `"\*\/30 \* \* \* \*"` \|$/m);
      assert.match(comment!, /^\| delete \| Old \|/m);
      assert.equal(plan.summary, comment);
      assert.deepEqual(await monitors(), before);
      assert.ok(log().some((line) => /^npm install --global --ignore-scripts webwatch@\d/.test(line)));

      // The merge: applied, Old pruned.
      const merged = await runWorkflow(workflow, repository, bin, context('push'));
      assert.equal(merged.get('plan'), 'skipped');
      assert.equal(job(merged, 'apply').code, 0, job(merged, 'apply').stderr);
      assert.deepEqual(await monitors(), { Pricing: '*/30 * * * *', News: '0 9 * * *' });

      // The next pull request with nothing to change edits the same comment.
      const again = await runWorkflow(workflow, repository, bin, context('pull_request'));
      assert.deepEqual(job(again, 'plan').outputs.plan, { changes: 'false' });
      assert.equal(comments().length, 1);
      assert.match(comments()[0]!, /^### webwatch plan: no changes \(2 unchanged\)\n/);

      // A refused key fails the plan job (exit 3) and posts nothing.
      const refused = await runWorkflow(workflow, repository, bin, context('pull_request', 'ww_wrong'));
      assert.equal(job(refused, 'plan').code, 1);
      assert.match(job(refused, 'plan').stderr, /Unauthorized/);
      assert.equal(comments().length, 1);
    }
  });

  it('GitLab CI: a merge request validates and gets its plan as a note; the default branch applies it', async () => {
    const pipeline = yamlFile(GITLAB_PIPELINE);
    const { bin, log, comments } = stubs();
    const variables = (source: 'merge_request_event' | 'push', extra: Record<string, string> = {}) => ({
      CI_PIPELINE_SOURCE: source,
      CI_DEFAULT_BRANCH: 'main',
      CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
      CI_PROJECT_ID: '42',
      ...(source === 'push' ? { CI_COMMIT_BRANCH: 'main' } : { CI_MERGE_REQUEST_IID: '7' }),
      WEBWATCH_API_URL: api.url,
      WEBWATCH_API_KEY: key,
      GITLAB_API_TOKEN: 'glpat-token',
      ...extra,
    });
    const job = (results: Map<string, StepResult | 'skipped'>, name: string) => {
      const result = results.get(name);
      assert.ok(result && result !== 'skipped', `job ${name} ran`);
      return result;
    };

    const invalid = await runPipeline(
      pipeline,
      { ...repository, 'monitors/news.yaml': NEWS.replace('daily at 9 am', 'every 2 minutes') },
      bin,
      variables('merge_request_event'),
    );
    assert.equal(job(invalid, 'validate').code, 2);
    assert.match(
      job(invalid, 'validate').stdout,
      /^monitors\/news\.yaml:2:18 {2}schedule\.text {2}every 2 minutes is more often than the minimum interval of 5 minutes$/m,
    );
    assert.equal(invalid.get('plan'), 'skipped');

    const before = await monitors();
    const opened = await runPipeline(pipeline, repository, bin, variables('merge_request_event'));
    assert.equal(job(opened, 'validate').code, 0);
    assert.equal(job(opened, 'plan').code, 0, job(opened, 'plan').stderr);
    assert.equal(opened.get('apply'), 'skipped');
    assert.match(job(opened, 'plan').stdout, /^### webwatch plan: 1 to create, 1 to update, 1 to delete, 0 unchanged$/m);
    assert.match(comments()[0]!, /^### webwatch plan: 1 to create, 1 to update, 1 to delete, 0 unchanged\n/);
    assert.ok(
      log().some(
        (line) => line.includes('--header PRIVATE-TOKEN: glpat-token') && line.endsWith('https://gitlab.example.com/api/v4/projects/42/merge_requests/7/notes'),
      ),
    );
    assert.deepEqual(await monitors(), before);

    const merged = await runPipeline(pipeline, repository, bin, variables('push'));
    assert.equal(merged.get('plan'), 'skipped');
    assert.equal(job(merged, 'apply').code, 0, job(merged, 'apply').stderr);
    assert.deepEqual(await monitors(), { Pricing: '*/30 * * * *', News: '0 9 * * *' });

    // Without a token for notes the plan stays in the log; a refused key fails the job.
    const quiet = await runPipeline(pipeline, repository, bin, variables('merge_request_event', { GITLAB_API_TOKEN: '' }));
    assert.equal(job(quiet, 'plan').code, 0);
    assert.match(job(quiet, 'plan').stdout, /^### webwatch plan: no changes \(2 unchanged\)$/m);
    assert.equal(comments().length, 1);
    const refused = await runPipeline(pipeline, repository, bin, variables('merge_request_event', { WEBWATCH_API_KEY: 'ww_wrong' }));
    assert.equal(job(refused, 'plan').code, 1);
  });
});

describe('the composite action (action.yml)', () => {
  const action = yamlFile('action.yml') as {
    inputs: Record<string, { required?: boolean; default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: { id?: string; run?: string; env?: Record<string, string> }[] };
  };
  let api: ServingWebwatch;
  let key: string;
  before(async () => {
    api = await serveWebwatch();
    key = (await api.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await api.stop();
  });

  /** The action's command step, its inputs given as a workflow would (defaults for the rest). */
  async function runAction(inputs: Record<string, string>, files: Record<string, string>) {
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    const values = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [`inputs.${name}`, inputs[name] ?? input.default ?? '']));
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, githubExpressions(value, values)]));
    const { bin } = stubs();
    const runnerTemp = tempDir();
    const output = join(runnerTemp, 'output');
    const summary = join(runnerTemp, 'summary');
    writeFileSync(output, '');
    writeFileSync(summary, '');
    const workspace = checkout(files);
    const result = await bash(step.run!, workspace, {
      ...baseEnv(bin),
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
      RUNNER_TEMP: runnerTemp,
      ...env,
    });
    const outputs = Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    return { ...result, outputs, summary: readFileSync(summary, 'utf8') };
  }

  it('takes the command, files, API URL and key, and more flags; says its exit code and whether anything changes', () => {
    assert.equal(action.runs.using, 'composite');
    assert.deepEqual(Object.keys(action.inputs).sort(), ['api-key', 'api-url', 'args', 'command', 'files', 'node-version', 'package']);
    assert.equal(action.inputs.command!.required, true);
    assert.deepEqual(Object.keys(action.outputs).sort(), ['changes', 'exit-code', 'output-file']);
    for (const [name, output] of Object.entries(action.outputs)) assert.equal(output.value, `\${{ steps.run.outputs.${name} }}`);
    // The documentation's example gives only inputs the action has, and every required one.
    const example = /```yaml\n([^`]*?uses: [^\n]*\/webwatch@[^`]*?)```/.exec(DOCS);
    assert.ok(example, 'the documentation has an example of the action');
    const steps: { uses?: string; with?: Record<string, unknown> }[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (typeof value === 'object' && value !== null) {
        if (/\/webwatch@/.test(String((value as { uses?: unknown }).uses))) steps.push(value as (typeof steps)[number]);
        Object.values(value).forEach(collect);
      }
    };
    collect(parseDocument(example[1]!).toJS());
    assert.ok(steps.length > 0);
    for (const step of steps) {
      const given = Object.keys(step.with ?? {});
      assert.deepEqual(
        given.filter((name) => !(name in action.inputs)),
        [],
        'inputs the action does not have',
      );
      assert.ok(given.includes('command'));
    }
  });

  it('diff: the plan as Markdown in a file and the step summary; exit 8 is an answer, not a failure', async () => {
    const result = await runAction(
      { command: 'diff', files: 'monitors/', 'api-url': api.url, 'api-key': key, args: '--prune --format markdown --detailed-exitcode' },
      { 'monitors/pricing.yaml': PRICING },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.outputs['exit-code'], '8');
    assert.equal(result.outputs.changes, 'true');
    const plan = readFileSync(result.outputs['output-file']!, 'utf8');
    assert.match(plan, /^### webwatch plan: 1 to create, 0 to update, 0 to delete, 0 unchanged\n/);
    assert.equal(result.summary, plan);
    assert.equal(result.stdout, plan);
  });

  it('apply, then validate of an invalid file: annotations, and the step fails with exit 2', async () => {
    const files = { 'monitors/pricing.yaml': PRICING, 'monitors/more/news.yaml': NEWS };
    const applied = await runAction(
      { command: 'apply', files: 'monitors/pricing.yaml\nmonitors/more', 'api-url': api.url, 'api-key': key, args: '--prune --yes' },
      files,
    );
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.outputs['exit-code'], '0');
    assert.equal(applied.outputs.changes, 'false');
    assert.equal(applied.summary, '');
    const list = await run(['monitor', 'list', '--json'], { env: { WEBWATCH_API_URL: api.url, WEBWATCH_API_KEY: key } });
    assert.deepEqual((JSON.parse(list.stdout) as { name: string }[]).map((m) => m.name).sort(), ['News', 'Pricing']);

    const invalid = await runAction({ command: 'validate' }, { 'monitors/pricing.yaml': PRICING.replace('0 * * * *', '*/2 * * * *') });
    assert.equal(invalid.code, 2);
    assert.equal(invalid.outputs['exit-code'], '2');
    assert.match(invalid.stdout, /^::error file=monitors\/pricing\.yaml,line=2,col=18::schedule\.cron: runs more often than every 5 minutes/m);

    const unknown = await runAction({ command: 'delete' }, files);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '::error title=webwatch::the command input must be validate, diff or apply\n');
  });

  it('installs what the package input names, or packs its own source, without install scripts', () => {
    const install = action.runs.steps.find((s) => s.run?.includes('npm install'))!;
    assert.match(install.run!, /npm install --global --ignore-scripts [^\n]*"\$spec"/);
    assert.match(install.run!, /npm pack --ignore-scripts/);
    assert.equal(install.env?.PACKAGE, '${{ inputs.package }}');
  });
});
