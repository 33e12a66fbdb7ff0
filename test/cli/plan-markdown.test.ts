/** The plan as a pull-request comment: `monitor diff --format markdown` and its renderer. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { PlanEntry } from '../../src/core/apply/plan.js';
import { markdownCode, markdownText } from '../../src/ui/formats/markdown.js';
import { planMarkdown } from '../../src/ui/formats/plan-markdown.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';

const LONG_GOAL = `Tell me ${'very '.repeat(60)}much`;

/** Every kind of change: create, update (changed, added, removed, secret, whole objects, long), delete, unchanged. */
const PLAN: PlanEntry[] = [
  { action: 'create', name: 'News', id: null, changes: [] },
  {
    action: 'update',
    name: 'Pricing | EU',
    id: '0b7c2a1f-0000-4000-8000-000000000001',
    changes: [
      { path: 'schedule.cron', from: '0 * * * *', to: '*/30 * * * *' },
      { path: 'goal', from: null, to: 'when the `price` changes' },
      { path: 'retentionDays', from: 30, to: null },
      { path: 'targets[0].urls[1]', from: 'https://example.com/a|b', to: 'https://example.com/c' },
      { path: 'targets[1]', from: null, to: { type: 'scrape', urls: ['https://example.com/m'], scrapeOptions: { headers: { Cookie: 'session=s3cr3t' } } } },
      { path: 'webhook.headers.Authorization', from: 'Bearer old-s3cr3t', to: 'Bearer new-s3cr3t' },
      { path: 'judgeEnabled', from: false, to: true },
    ],
  },
  {
    action: 'update',
    name: 'Hooks',
    id: '0b7c2a1f-0000-4000-8000-000000000002',
    changes: [
      { path: 'webhook', from: { url: 'https://hooks.example.com/x', headers: { 'X-Token': 's3cr3t' } }, to: null },
      { path: 'goal', from: 'short', to: LONG_GOAL },
    ],
  },
  { action: 'delete', name: 'Old <b>docs</b>', id: '0b7c2a1f-0000-4000-8000-000000000003', changes: [] },
  { action: 'unchanged', name: 'Blog', id: '0b7c2a1f-0000-4000-8000-000000000004', changes: [] },
  { action: 'unchanged', name: 'Changelog_*v2*', id: '0b7c2a1f-0000-4000-8000-000000000005', changes: [] },
];

describe('planMarkdown', () => {
  it('renders a summary line, the table of changes and each changed field, secrets redacted', () => {
    const cut = `\`"Tell me ${'very '.repeat(38)}…\``;
    assert.equal(
      planMarkdown(PLAN, { applied: false }),
      [
        '### webwatch plan: 1 to create, 2 to update, 1 to delete, 2 unchanged',
        '',
        '| action | monitor | id | changes |',
        '| --- | --- | --- | --- |',
        '| create | News |  |  |',
        '| update | Pricing \\| EU | `0b7c2a1f-0000-4000-8000-000000000001` | 7 fields |',
        '| update | Hooks | `0b7c2a1f-0000-4000-8000-000000000002` | 2 fields |',
        '| delete | Old \\<b\\>docs\\</b\\> | `0b7c2a1f-0000-4000-8000-000000000003` |  |',
        '',
        '#### Pricing \\| EU',
        '',
        '| field | before | after |',
        '| --- | --- | --- |',
        '| `schedule.cron` | `"0 * * * *"` | `"*/30 * * * *"` |',
        '| `goal` | *none* | ``"when the `price` changes"`` |',
        '| `retentionDays` | `30` | *none* |',
        '| `targets[0].urls[1]` | `"https://example.com/a\\|b"` | `"https://example.com/c"` |',
        '| `targets[1]` | *none* | `{"type":"scrape","urls":["https://example.com/m"],"scrapeOptions":{"headers":{"Cookie":"<redacted>"}}}` |',
        '| `webhook.headers.Authorization` | `"<redacted>"` | `"<redacted>"` |',
        '| `judgeEnabled` | `false` | `true` |',
        '',
        '#### Hooks',
        '',
        '| field | before | after |',
        '| --- | --- | --- |',
        '| `webhook` | `{"url":"https://hooks.example.com/x","headers":{"X-Token":"<redacted>"}}` | *none* |',
        `| \`goal\` | \`"short"\` | ${cut} |`,
        '',
        '<details><summary>2 monitors unchanged</summary>',
        '',
        'Blog, Changelog\\_\\*v2\\*',
        '',
        '</details>',
        '',
      ].join('\n'),
    );
    assert.doesNotMatch(planMarkdown(PLAN, { applied: false }), /s3cr3t/);
  });

  it('after an apply says what was done; a plan without changes says so', () => {
    const applied = planMarkdown(PLAN, { applied: true });
    assert.match(applied, /^### webwatch apply: 1 created, 2 updated, 1 deleted, 2 unchanged\n/);
    assert.match(applied, /^\| created \| News \|/m);
    assert.match(applied, /^\| deleted \| Old /m);
    const quiet = planMarkdown(
      PLAN.filter((entry) => entry.action === 'unchanged'),
      { applied: false },
    );
    assert.equal(
      quiet,
      '### webwatch plan: no changes (2 unchanged)\n\n<details><summary>2 monitors unchanged</summary>\n\nBlog, Changelog\\_\\*v2\\*\n\n</details>\n',
    );
    assert.equal(planMarkdown([], { applied: false }), '### webwatch plan: no changes (0 unchanged)\n');
  });

  it('text from outside stays text: markup escaped, code spans fenced past their backticks', () => {
    assert.equal(markdownText('[link](https://x) <img> a\nb'), '\\[link\\]\\(https://x\\) \\<img\\> a b');
    assert.equal(markdownCode('a`b'), '``a`b``');
    assert.equal(markdownCode('`x`'), '`` `x` ``');
    assert.equal(markdownCode('a|b'), '`a\\|b`');
    assert.equal(markdownText('\u001b[31mred'), '\\\\x1b\\[31mred');
  });
});

const PRICING = `name: Pricing
schedule: {cron: "0 * * * *"}
targets: [{type: scrape, urls: [https://example.com/a]}]
webhook: {url: https://hooks.example.com/x, headers: {Authorization: "Bearer \${TOKEN}"}}
`;
const OLD = `name: Old
schedule: {cron: "0 * * * *"}
targets: [{type: scrape, urls: [https://example.com/old]}]
`;

describe('monitor diff --format markdown', () => {
  it('prints the plan as Markdown on stdout, the counts on stderr, and exits 8 with --detailed-exitcode', async () => {
    const env = { WEBWATCH_HOME: tempDir(), TOKEN: 'tok-s3cr3t' };
    const dir = writeFiles({ 'pricing.yaml': PRICING, 'old.yaml': OLD });
    assert.equal((await run(['monitor', 'apply', '-f', dir], { env })).code, 0);
    writeFileSync(join(dir, 'pricing.yaml'), PRICING.replace('0 * * * *', '*/30 * * * *').replace('tok', 'new'));
    writeFileSync(join(dir, 'old.yaml'), OLD.replace('Old', 'New'));
    const result = await run(['monitor', 'diff', '-f', dir, '--prune', '--format', 'markdown', '--detailed-exitcode'], {
      env: { ...env, TOKEN: 'rotated-s3cr3t' },
    });
    assert.equal(result.code, 8);
    const lines = result.stdout.split('\n');
    assert.equal(lines[0], '### webwatch plan: 1 to create, 1 to update, 1 to delete, 0 unchanged');
    assert.match(result.stdout, /^\| create \| New \| {2}\| {2}\|$/m);
    assert.match(result.stdout, /^\| update \| Pricing \| `[0-9a-f-]{36}` \| 2 fields \|$/m);
    assert.match(result.stdout, /^\| delete \| Old \| `[0-9a-f-]{36}` \| {2}\|$/m);
    assert.match(result.stdout, /^\| `schedule\.cron` \| `"0 \* \* \* \*"` \| `"\*\/30 \* \* \* \*"` \|$/m);
    assert.match(result.stdout, /^\| `webhook\.headers\.Authorization` \| `"<redacted>"` \| `"<redacted>"` \|$/m);
    assert.doesNotMatch(result.stdout, /s3cr3t/);
    assert.equal(result.stderr, 'Plan: 1 to create, 1 to update, 0 unchanged, 1 to delete.\n');
    // diff changes nothing; the same plan applied says what it did.
    const applied = await run(['monitor', 'apply', '-f', dir, '--prune', '--yes', '--format', 'markdown'], { env });
    assert.equal(applied.code, 0);
    assert.match(applied.stdout, /^### webwatch apply: 1 created, 1 updated, 1 deleted, 0 unchanged$/m);
    const again = await run(['monitor', 'diff', '-f', dir, '--prune', '--format', 'markdown', '--detailed-exitcode'], { env });
    assert.equal(again.code, 0);
    assert.match(again.stdout, /^### webwatch plan: no changes \(2 unchanged\)$/m);
  });
});
