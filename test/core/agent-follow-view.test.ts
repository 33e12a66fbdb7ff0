/**
 * What a follower makes of a trace (what each agent waits for, the summary, the status line)
 * and how a job named by an id prefix is found among the team's jobs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveAgentRef } from '../../src/core/agent/agent-ref.js';
import { outcomeOfStatus } from '../../src/core/agent/follow.js';
import { AgentRunView } from '../../src/ui/agent-run-view.js';
import type { TraceEvent, TraceEventBody } from '../../src/engine/agent/trace.js';
import type { AgentListItem } from '../../src/engine/agent/wire.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import type { WebwatchError } from '../../src/errors/webwatch-error.js';
import { statusText, summaryText } from '../../src/ui/agent-live.js';

const T0 = Date.parse('2026-11-25T10:00:00Z');
let sequence = 0;
const event = (atMs: number, body: TraceEventBody, agent = 'orchestrator'): TraceEvent => ({
  ...body,
  schemaVersion: 1,
  eventId: `e${++sequence}`,
  runId: 'run',
  occurredAt: new Date(T0 + atMs).toISOString(),
  producerSequence: sequence,
  agent: { id: agent, role: agent === 'orchestrator' ? 'orchestrator' : 'subagent', name: agent },
});
const turn = (n: number) => ({ type: 'progress.reported' as const, phase: 'working' as const, message: `model turn ${n}`, modelTurn: n });

describe('a run as its follower sees it', () => {
  it('says what each agent waits for and since when, on its own clock even when the server is an hour ahead', () => {
    const view = new AgentRunView(20);
    // The server's clock is an hour ahead and events reach us 50 ms after they happen.
    const ahead = 3_600_000;
    const see = (e: TraceEvent, arrivedAt: number) => view.see({ ...e, occurredAt: new Date(Date.parse(e.occurredAt) + ahead).toISOString() }, arrivedAt);
    see(event(0, { type: 'run.started' }), T0 + 50);
    see(event(0, { type: 'agent.started' }), T0 + 50);
    see(event(10, turn(1)), T0 + 60);
    assert.deepEqual(view.activities(), [{ agent: 'orchestrator', doing: 'model turn 1', since: T0 + 60 }]);
    see(event(4000, { type: 'tool_call.started', toolCallId: 'c1', toolName: 'scrape', parameters: { url: 'https://example.com/a' } }), T0 + 4100);
    assert.deepEqual(
      view.activities().map((a) => a.doing),
      ['scrape https://example.com/a'],
    );
    see(event(4100, { type: 'tool_call.started', toolCallId: 's1', toolName: 'start_subagent', parameters: { task: 'pricing' } }), T0 + 4150);
    see(event(4100, { type: 'agent.started' }, 'subagent 1'), T0 + 4150);
    see(event(4110, turn(1), 'subagent 1'), T0 + 4160);
    see(event(4100, { type: 'tool_call.finished', toolCallId: 's1', toolName: 'start_subagent', result: {} }), T0 + 4150);
    const finished = see(event(5200, { type: 'tool_call.finished', toolCallId: 'c1', toolName: 'scrape', result: {} }), T0 + 5300);
    assert.deepEqual(finished, { durationMs: 1200 }, 'from the events when the API gives no durationMs');
    view.credits = 6;
    assert.equal(statusText(view, T0 + 7050), '7.0 s · orchestrator: working, 1.8 s · subagent 1: model turn 1, 2.9 s · 6 of 20 credits');
    see(event(9000, { type: 'agent.finished', outcome: 'succeeded', durationMs: 4900, error: null }, 'subagent 1'), T0 + 9050);
    see(event(9000, { type: 'artifact.updated', artifact: { kind: 'json', artifactId: 'result', snapshotId: 'snap1', change: 'init' } }), T0 + 9050);
    see(event(9001, { type: 'run.finished', outcome: 'succeeded', error: null }), T0 + 9100);
    assert.deepEqual(view.activities(), []);
    const summary = view.summary(T0 + 60_000);
    assert.deepEqual(summary, { outcome: 'succeeded', durationMs: 9001, modelTurns: 2, toolCalls: 2, credits: 6, snapshots: 1 });
    assert.equal(summaryText(summary), 'succeeded in 9.0 s: 2 model turns, 2 tool calls, 6 credits, 1 snapshot');
  });

  it('reads the outcome of a run whose trace lacks run.finished from its status', () => {
    const status = (s: 'processing' | 'completed' | 'failed', error?: string) => ({ success: true, status: s, expiresAt: '', ...(error && { error }) });
    assert.equal(outcomeOfStatus(status('processing')), undefined);
    assert.equal(outcomeOfStatus(status('completed')), 'succeeded');
    assert.equal(outcomeOfStatus(status('failed', 'Agent run was cancelled')), 'cancelled');
    assert.equal(outcomeOfStatus(status('failed', 'The agent refused the task: no')), 'refused');
    assert.equal(outcomeOfStatus(status('failed', 'Agent run stopped: the run reached its maxCredits limit of 5 credits')), 'credit_limit_reached');
    assert.equal(outcomeOfStatus(status('failed', 'Agent run failed: the model failed')), 'failed');
  });
});

describe('agent jobs by id prefix', () => {
  const ids = [
    '3f2a9c10-0000-4000-8000-000000000001',
    '3f2a9d20-0000-4000-8000-000000000002',
    '7b1e0000-0000-4000-8000-000000000003',
    'c0ffee00-0000-4000-8000-000000000004',
  ];
  const item = (id: string, i: number): AgentListItem => ({
    id,
    createdAt: new Date(T0 - i * 1000).toISOString(),
    targetHint: `job ${i}`,
    origin: 'api',
    settings: { hidden: false, starred: false },
    status: 'completed',
  });
  /** The team's jobs in pages of two, newest first, as the list route pages them. */
  const backend = (jobs = ids) => {
    const counted = { pages: 0 };
    return Object.assign(counted, {
      agents: {
        list: async (options: { before?: number } = {}) => {
          counted.pages++;
          const all = jobs.map(item).filter((job) => options.before === undefined || Date.parse(job.createdAt) < options.before);
          return { agents: all.slice(0, 2), ...(all.length > 2 && { next: 'more' }) };
        },
      },
    });
  };
  const refusal = async (ref: string, jobs?: string[]) => {
    try {
      await resolveAgentRef(backend(jobs), ref);
    } catch (error) {
      return error as WebwatchError;
    }
    throw new Error(`"${ref}" was resolved`);
  };

  it('takes a whole id as it is, without listing', async () => {
    const list = backend();
    assert.equal(await resolveAgentRef(list, ids[0]!.toUpperCase()), ids[0]);
    assert.equal(list.pages, 0);
  });

  it('finds a unique prefix of 4 or more characters, on any page of the list', async () => {
    assert.equal(await resolveAgentRef(backend(), '3f2a9c'), ids[0]);
    assert.equal(await resolveAgentRef(backend(), 'C0FFEE'), ids[3], 'on the second page, in capitals');
  });

  it('refuses an ambiguous prefix, naming the candidates', async () => {
    const error = await refusal('3f2a');
    assert.match(error.message, /"3f2a" matches 2 agent jobs: 3f2a9c10 \(job 0\), 3f2a9d20 \(job 1\)/);
    assert.equal(error.exitCode, EXIT.usage);
  });

  it('says what matched nothing, with the one job a typo away', async () => {
    const typo = await refusal('7b1f');
    assert.equal(typo.message, 'Agent job not found');
    assert.equal(typo.exitCode, EXIT.notFound);
    assert.match(typo.suggestion ?? '', /did you mean 7b1e0000\?/);
    assert.match((await refusal('7b1f', [])).suggestion ?? '', /no agent jobs yet/);
    assert.equal((await refusal('9999')).suggestion, 'webwatch agent list shows the ids');
  });

  it('refuses what cannot be an id prefix before asking anything', async () => {
    assert.equal((await refusal('3f2')).exitCode, EXIT.usage);
    assert.match((await refusal('3f2')).message, /too short .* at least 4 characters/);
    assert.match((await refusal('latest!')).message, /is not an agent job id/);
  });
});
