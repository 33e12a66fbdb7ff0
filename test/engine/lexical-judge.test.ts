/** The lexical judge on a table of goals and diffs: words of the goal, and amounts for goals about them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAmountGoal, lexicalJudge, tellEachChangeOnce } from '../../src/engine/judge/judge.js';

const diff = (removed: string[], added: string[]) => ['--- a', '+++ b', '@@ -1 +1 @@', ...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)].join('\n');

describe('the lexical judge', () => {
  const table: { goal: string; removed: string[]; added: string[]; meaningful: boolean; confidence?: string; reason?: RegExp }[] = [
    {
      goal: 'Tell me when the Pro plan price changes',
      removed: ['| Pro | $50/month |'],
      added: ['| Pro | $65/month |'],
      meaningful: true,
      confidence: 'high',
      reason: /\$50\/month → \$65\/month/,
    },
    {
      goal: 'API credits included',
      removed: ['Each plan includes 5000 a month'],
      added: ['Each plan includes 4000 a month'],
      meaningful: true,
      confidence: 'high',
      reason: /5000 → 4000/,
    },
    {
      goal: 'fees for international transfers',
      removed: ['Transfer: €1,200.00 minimum'],
      added: ['Transfer: €1,500.00 minimum'],
      meaningful: true,
      reason: /€1,200\.00 → €1,500\.00/,
    },
    { goal: 'costs of hosting', removed: ['Storage 20 GB included'], added: ['Storage 10 GB included'], meaningful: true, reason: /20 → 10/ },
    { goal: 'subscription pricing', removed: [], added: ['New: Team tier at $99/month'], meaningful: true, reason: /shows an amount: \$99\/month/ },
    // Dates, times, relative times and years change without anything costing more.
    { goal: 'pricing of the plans', removed: ['Last updated 2026-11-21'], added: ['Last updated 2026-11-22'], meaningful: false },
    { goal: 'pricing of the plans', removed: ['Published Nov 21, 2026'], added: ['Published Nov 22, 2026'], meaningful: false },
    { goal: 'pricing of the plans', removed: ['Posted 3 hours ago'], added: ['Posted 4 hours ago'], meaningful: false },
    { goal: 'pricing of the plans', removed: ['© 2025 Acme'], added: ['© 2026 Acme'], meaningful: false },
    { goal: 'pricing of the plans', removed: ['Doors open at 10:30'], added: ['Doors open at 11:00'], meaningful: false },
    // A goal that is not about amounts does not turn a number into news.
    { goal: 'new blog posts about security', removed: ['Comments: 12'], added: ['Comments: 13'], meaningful: false },
    // The goal's words still count, as before.
    {
      goal: 'security advisories',
      removed: [],
      added: ['A new security advisory was published'],
      meaningful: true,
      confidence: 'medium',
      reason: /"security"/,
    },
    { goal: 'pricing', removed: ['About us'], added: ['About the team'], meaningful: false },
  ];
  for (const row of table) {
    it(`${row.meaningful ? 'finds' : 'does not find'} "${[...row.removed, '→', ...row.added].join(' ')}" meaningful for "${row.goal}"`, async () => {
      const judgment = await lexicalJudge({ goal: row.goal, url: 'https://example.com/', status: 'changed', content: diff(row.removed, row.added) });
      assert.equal(judgment.meaningful, row.meaningful, judgment.reason);
      if (row.confidence) assert.equal(judgment.confidence, row.confidence, judgment.reason);
      if (row.reason) assert.match(judgment.reason, row.reason);
      assert.match(judgment.reason, /^lexical judge/);
      if (!row.meaningful) assert.deepEqual(judgment.meaningfulChanges, []);
    });
  }

  it('lists the changed amount with its lines', async () => {
    const judgment = await lexicalJudge({
      goal: 'price',
      url: 'https://example.com/',
      status: 'changed',
      content: diff(['Starter $9/mo, Pro $50/mo'], ['Starter $9/mo, Pro $65/mo']),
    });
    assert.deepEqual(judgment.meaningfulChanges[0], {
      type: 'changed',
      before: 'Starter $9/mo, Pro $50/mo',
      after: 'Starter $9/mo, Pro $65/mo',
      reason: 'an amount changed: $50/mo → $65/mo',
    });
  });

  it('tells a changed price line once, not also as added and removed', async () => {
    const judgment = await lexicalJudge({
      goal: 'Pro plan price',
      url: 'https://example.com/',
      status: 'changed',
      content: diff(['Pro plan price: $50/month'], ['Pro plan price: $65/month']),
    });
    assert.deepEqual(judgment.meaningfulChanges, [
      { type: 'changed', before: 'Pro plan price: $50/month', after: 'Pro plan price: $65/month', reason: 'an amount changed: $50/month → $65/month' },
    ]);
  });

  it('tells an edited line once, as changed', async () => {
    const judgment = await lexicalJudge({
      goal: 'security policy',
      url: 'https://example.com/',
      status: 'changed',
      content: diff(['The security policy applies to staff.', 'About us'], ['The security policy applies to all staff.', 'A new security page']),
    });
    assert.deepEqual(
      judgment.meaningfulChanges.map((change) => [change.type, change.before, change.after]),
      [
        ['changed', 'The security policy applies to staff.', 'The security policy applies to all staff.'],
        ['added', null, 'A new security page'],
      ],
    );
  });

  it("drops the repeats of a model's list: a changed line again as added or removed, an entry twice", () => {
    const change = { type: 'changed' as const, before: 'Pro: $50', after: 'Pro: $65', reason: 'price' };
    const listed = tellEachChangeOnce([
      change,
      { type: 'added', before: null, after: 'Pro: $65', reason: 'new price' },
      { type: 'removed', before: 'Pro: $50 ', after: null, reason: 'old price' },
      { ...change },
      { type: 'added', before: null, after: 'Team: $99', reason: 'new tier' },
    ]);
    assert.deepEqual(
      listed.map((entry) => entry.type),
      ['changed', 'added'],
    );
    assert.equal(listed[1]!.after, 'Team: $99');
  });

  it('a new page that shows prices matters for a goal about them', async () => {
    const judgment = await lexicalJudge({ goal: 'plan costs', url: 'https://example.com/', status: 'new', content: '# Plans\n\nBasic: $10/month\n' });
    assert.equal(judgment.meaningful, true);
    assert.match(judgment.reason, /\$10\/month/);
  });

  it('knows a goal about amounts', () => {
    for (const goal of ['price changes', 'Pricing page', 'monthly fees', 'credits per plan', 'cost of the Pro tier', 'anything over $100'])
      assert.ok(isAmountGoal(goal), goal);
    for (const goal of ['new blog posts', 'security advisories', 'job openings in Berlin']) assert.ok(!isAmountGoal(goal), goal);
  });
});
