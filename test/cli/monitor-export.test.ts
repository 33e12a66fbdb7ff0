/** `monitor export`: definitions that apply reads back as unchanged, with secrets as references. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run, type FakeIoOptions } from '../helpers/io.js';

const FILES = {
  'pricing.yaml': `name: Pricing pages
schedule: {text: daily at 9 am, timezone: Europe/Paris}
goal: "Tell me when a price changes (not $\${this})"
targets:
  - type: scrape
    urls: [https://example.com/pricing]
    scrapeOptions:
      headers: {Cookie: "session=\${SESSION}"}
notification:
  email: {enabled: true, recipients: [team@example.com]}
webhook:
  url: https://hooks.example.com/x
  headers:
    X-Token: \${TOKEN}
`,
  'docs.yaml': `name: Docs
schedule: {cron: "*/30 * * * *"}
targets:
  - type: crawl
    url: https://docs.example.com/changelog
    crawlOptions: {limit: 50, includePaths: ["^/changelog/.*"]}
  - type: search
    queries: [webwatch release]
goal: releases
retentionDays: 7
`,
};

function workspace() {
  const dir = writeFiles(FILES);
  const env = { WEBWATCH_HOME: tempDir(), TOKEN: 'token-secret-1', SESSION: 'cookie-secret-2' };
  const ww = (args: string[], options: FakeIoOptions = {}) => run(args, { now: new Date('2026-11-21T12:00:00Z'), ...options, env: { ...env, ...options.env } });
  return { dir, env, ww };
}

describe('monitor export', () => {
  it('writes every monitor as a definition that diff finds unchanged, secrets as variables', async () => {
    const { dir, ww } = workspace();
    const applied = await ww(['monitor', 'apply', '-f', dir]);
    assert.equal(applied.code, 0, applied.stderr);
    const exported = await ww(['monitor', 'export']);
    assert.equal(exported.code, 0, exported.stderr);
    assert.ok(!exported.stdout.includes('token-secret-1') && !exported.stdout.includes('cookie-secret-2'), 'no secret in the export');
    assert.ok(!/\b(id|status|createdAt|updatedAt|lastRunAt|nextRunAt|estimatedCreditsPerMonth|lastCheckSummary):/.test(exported.stdout), exported.stdout);
    assert.match(exported.stdout, /X-Token: \$\{PRICING_PAGES_WEBHOOK_X_TOKEN\}/);
    assert.match(exported.stdout, /Cookie: \$\{PRICING_PAGES_TARGETS_0_COOKIE\}/);
    assert.match(exported.stderr, /2 header value\(s\) written as \$\{VARIABLE\} references/);
    const file = join(tempDir(), 'exported.yaml');
    writeFileSync(file, exported.stdout);

    const env = { PRICING_PAGES_WEBHOOK_X_TOKEN: 'token-secret-1', PRICING_PAGES_TARGETS_0_COOKIE: 'session=cookie-secret-2' };
    const diff = await ww(['monitor', 'diff', '-f', file, '--detailed-exitcode', '--json'], { env });
    assert.equal(diff.code, 0, diff.stdout + diff.stderr);
    assert.deepEqual(JSON.parse(diff.stdout).summary, { created: 0, updated: 0, unchanged: 2, deleted: 0 });

    // A rotated secret shows as a change: the references are really read.
    const rotated = await ww(['monitor', 'diff', '-f', file, '--detailed-exitcode'], { env: { ...env, PRICING_PAGES_WEBHOOK_X_TOKEN: 'other' } });
    assert.equal(rotated.code, 8);
  });

  it('exports the monitors named, by name or id, and --show-secrets writes the values', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const id = JSON.parse((await ww(['monitor', 'get', 'Docs', '--json'])).stdout).id;
    const one = await ww(['monitor', 'export', id]);
    assert.match(one.stdout, /^name: Docs$/m);
    assert.doesNotMatch(one.stdout, /Pricing/);
    const shown = await ww(['monitor', 'export', 'Pricing pages', '--show-secrets']);
    assert.match(shown.stdout, /X-Token: token-secret-1/);
    assert.match(shown.stdout, /goal: Tell me when a price changes \(not \$\$\{this\}\)/, 'a literal ${ is escaped for interpolation');
    const file = join(tempDir(), 'shown.yaml');
    writeFileSync(file, shown.stdout);
    assert.equal((await ww(['monitor', 'diff', '-f', file, '--detailed-exitcode'])).code, 0);
  });

  it('--json gives the definitions and the variables to set', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const result = JSON.parse((await ww(['monitor', 'export', '--json'])).stdout);
    assert.deepEqual(result.definitions.map((d: { name: string }) => d.name).sort(), ['Docs', 'Pricing pages']);
    assert.deepEqual(result.secrets.map((s: { variable: string }) => s.variable).sort(), ['PRICING_PAGES_TARGETS_0_COOKIE', 'PRICING_PAGES_WEBHOOK_X_TOKEN']);
  });

  it('an unknown monitor is an error that names it, and nothing is printed', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const result = await ww(['monitor', 'export', 'Docs', 'Nope']);
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /Nope/);
  });
});
