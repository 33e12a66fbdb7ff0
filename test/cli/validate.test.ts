/** `monitor validate` in-process: human lines, the exact JSON report, --print, exit codes. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../helpers/io.js';
import { writeFiles } from '../helpers/files.js';

const VALID = `name: Pricing
schedule:
  text: daily at 9 am
  timezone: Europe/Paris
goal: price changes
targets:
  - type: scrape
    urls: [https://example.com/pricing]
webhook:
  url: https://hooks.example.com/x
  headers:
    Authorization: Bearer \${HOOK_TOKEN}
`;

const INVALID = `- name: Broken
  schedule:
    cron: "*/2 * * * *"
  targets:
    - type: scrape
      urls: [https://example.com]
      scrapeOptions:
        timeout: 400000
- name: Typo
  schedul: {cron: "0 * * * *"}
  targets: []
`;

describe('monitor validate', () => {
  it('exits 0 and prints nothing on stdout for valid files', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const result = await run(['monitor', 'validate', join(dir, 'ok.yaml')], { env: { HOOK_TOKEN: 't0k3n' } });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /✓ 1 monitor in 1 file valid/);
  });

  it('prints file:line:col  path  message for every error of every file and exits 2', async () => {
    const dir = writeFiles({ 'a.yaml': INVALID, 'b.yaml': 'name: [unclosed\n' });
    const result = await run(['monitor', 'validate', join(dir, 'a.yaml'), join(dir, 'b.yaml')]);
    assert.equal(result.code, 2);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.replace(dir, '<dir>'));
    assert.deepEqual(lines.slice(0, 5), [
      '<dir>/a.yaml:3:11  schedule.cron  runs more often than every 5 minutes: it fires at 00:00 and 00:02, 2 minutes apart',
      '<dir>/a.yaml:8:18  targets[0].scrapeOptions.timeout  must be at most 300000 (got 400000)',
      '<dir>/a.yaml:9:3  schedule  is required',
      '<dir>/a.yaml:10:3  schedul  unknown field "schedul" (did you mean "schedule"?)',
      '<dir>/a.yaml:11:12  targets  must list at least one item',
    ]);
    assert.match(lines[5]!, /^<dir>\/b\.yaml:\d+:\d+ {2}YAML syntax: /);
    assert.match(result.stderr, /✗ \d+ errors in 2 of 2 files/);
  });

  it('prints exactly the documented JSON shape', async () => {
    const dir = writeFiles({ 'a.yaml': INVALID, 'ok.yaml': VALID });
    const result = await run(['monitor', 'validate', '--json', dir], { env: { HOOK_TOKEN: 'x' } });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, '');
    const report = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(report), ['valid', 'files']);
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.files.map((f: { file: string }) => f.file),
      [join(dir, 'a.yaml'), join(dir, 'ok.yaml')],
    );
    const [broken, typo] = report.files[0].monitors;
    assert.deepEqual(Object.keys(broken), ['name', 'valid', 'errors']);
    assert.deepEqual(broken.errors[1], { path: 'targets[0].scrapeOptions.timeout', line: 8, column: 18, message: 'must be at most 300000 (got 400000)' });
    assert.equal(typo.name, 'Typo');
    assert.deepEqual(
      typo.errors.map((e: { path: string }) => e.path),
      ['schedule', 'schedul', 'targets'],
    );
    assert.deepEqual(report.files[0].errors, []);
    assert.deepEqual(report.files[1].monitors, [{ name: 'Pricing', valid: true, errors: [] }]);
  });

  it('reports unreadable paths with the others and still exits 2', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID, 'empty/readme.txt': 'no yaml here' });
    const result = await run(['monitor', 'validate', '--json', join(dir, 'missing.yaml'), join(dir, 'empty'), join(dir, 'ok.yaml')], {
      env: { HOOK_TOKEN: 'x' },
    });
    assert.equal(result.code, 2);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(
      report.files.map((f: { errors: { message: string }[] }) => f.errors.map((e) => e.message)),
      [['cannot read: no such file or directory'], ['the directory holds no .yaml or .yml files'], []],
    );
    assert.deepEqual(report.files[0].errors[0], { path: '', line: null, column: null, message: 'cannot read: no such file or directory' });
  });

  it('flags duplicate names across files', async () => {
    const dir = writeFiles({ 'a.yaml': VALID, 'b.yml': `\n\n${VALID}` });
    const result = await run(['monitor', 'validate', dir], { env: { HOOK_TOKEN: 'x' } });
    assert.equal(result.code, 2);
    assert.equal(result.stdout.replaceAll(dir, '<dir>'), '<dir>/b.yml:3:7  name  duplicate monitor name "Pricing": already defined at <dir>/a.yaml:1\n');
  });

  it('holds waitFor to half of the timeout (given, or the default), screenshot viewports to 7680 x 4320, and format objects closed', async () => {
    const file = `name: Rules
schedule: {cron: "0 * * * *"}
targets:
  - type: scrape
    urls: [https://example.com/a]
    scrapeOptions:
      timeout: 15000
      waitFor: 8000
  - type: crawl
    url: https://example.com
    scrapeOptions:
      waitFor: 40000
      formats:
        - type: screenshot
          viewport: {width: 8000, height: 4320}
        - type: json
          prompt: the price
          systemPrompt: be brief
  - type: scrape
    urls: [https://example.com/b]
    scrapeOptions:
      timeout: 15000
      waitFor: 7500
      actions:
        - {type: screenshot, viewport: {width: 7680, height: 4321}}
`;
    const dir = writeFiles({ 'rules.yaml': file });
    const result = await run(['monitor', 'validate', join(dir, 'rules.yaml')]);
    assert.equal(result.code, 2);
    assert.deepEqual(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.replace(dir, '<dir>')),
      [
        '<dir>/rules.yaml:8:16  targets[0].scrapeOptions.waitFor  waitFor must not exceed half of timeout: 8000 ms is more than half of the timeout of 15000 ms (7500 ms); a timeout of at least 16000 ms allows it',
        '<dir>/rules.yaml:12:16  targets[1].scrapeOptions.waitFor  waitFor must not exceed half of timeout: 40000 ms is more than half of the default timeout of 60000 ms, which applies as timeout is not given (30000 ms); a timeout of at least 80000 ms allows it',
        '<dir>/rules.yaml:15:29  targets[1].scrapeOptions.formats[0].viewport.width  must be at most 7680 (got 8000)',
        '<dir>/rules.yaml:18:11  targets[1].scrapeOptions.formats[1].systemPrompt  unknown field "systemPrompt"',
        '<dir>/rules.yaml:25:62  targets[2].scrapeOptions.actions[0].viewport.height  must be at most 4320 (got 4321)',
      ],
    );
  });

  it('reads standard input for -', async () => {
    const result = await run(['monitor', 'validate', '-', '--json'], { stdin: VALID.replace('${HOOK_TOKEN}', 'x') });
    assert.equal(result.code, 0);
    assert.equal(JSON.parse(result.stdout).files[0].file, '<stdin>');
  });

  it('names an unset variable at its place', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const result = await run(['monitor', 'validate', join(dir, 'ok.yaml')]);
    assert.equal(result.code, 2);
    assert.match(result.stdout, /ok\.yaml:12:20 {2}webhook\.headers\.Authorization {2}environment variable HOOK_TOKEN is not set/);
  });

  it('--print shows normalised definitions with next runs, and never header values', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const result = await run(['monitor', 'validate', '--print', join(dir, 'ok.yaml')], {
      env: { HOOK_TOKEN: 'super-secret-token' },
      now: new Date('2026-03-27T12:00:00Z'),
    });
    assert.equal(result.code, 0);
    assert.ok(!result.stdout.includes('super-secret-token'));
    assert.match(result.stdout, /Authorization: <redacted>/);
    assert.match(result.stdout, /cron: 0 9 \* \* \*\n {2}timezone: Europe\/Paris/);
    assert.match(result.stdout, /judgeEnabled: true/);
    assert.match(result.stdout, /retentionDays: 30/);
    assert.match(result.stdout, /events:\n {4}- monitor\.page\n {4}- monitor\.check\.completed/);
    // Paris switches to summer time on 2026-03-29.
    assert.match(result.stdout, /# next runs: 2026-03-28T09:00:00\+01:00, 2026-03-29T09:00:00\+02:00, 2026-03-30T09:00:00\+02:00/);
  });

  it('--print --json adds the definition and next runs in UTC', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const result = await run(['monitor', 'validate', '--print', '--json', join(dir, 'ok.yaml')], {
      env: { HOOK_TOKEN: 'super-secret-token' },
      now: new Date('2026-03-27T12:00:00Z'),
    });
    const [monitor] = JSON.parse(result.stdout).files[0].monitors;
    assert.deepEqual(monitor.nextRuns, ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    assert.deepEqual(monitor.definition.schedule, { cron: '0 9 * * *', timezone: 'Europe/Paris' });
    assert.equal(monitor.definition.webhook.headers.Authorization, '<redacted>');
  });

  it('with --print, problems go to stderr so stdout stays YAML', async () => {
    const dir = writeFiles({ 'a.yaml': INVALID });
    const result = await run(['monitor', 'validate', '--print', join(dir, 'a.yaml')]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /schedule\.cron {2}runs more often/);
  });

  it('colours only a terminal, and not with NO_COLOR or --no-color', async () => {
    const dir = writeFiles({ 'a.yaml': INVALID });
    const file = join(dir, 'a.yaml');
    const ESC = '\u001b[';
    assert.ok((await run(['monitor', 'validate', file], { tty: true })).stdout.includes(ESC));
    assert.ok(!(await run(['monitor', 'validate', file], { tty: false })).stdout.includes(ESC));
    assert.ok(!(await run(['monitor', 'validate', file], { tty: true, env: { NO_COLOR: '1' } })).stdout.includes(ESC));
    assert.ok(!(await run(['monitor', 'validate', file], { tty: true, env: { TERM: 'dumb' } })).stdout.includes(ESC));
    assert.ok(!(await run(['--no-color', 'monitor', 'validate', file], { tty: true })).stdout.includes(ESC));
  });

  it('-q keeps stderr quiet on success', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const result = await run(['-q', 'monitor', 'validate', join(dir, 'ok.yaml')], { env: { HOOK_TOKEN: 'x' } });
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
  });
});
