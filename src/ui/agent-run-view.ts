/**
 * What a follower knows of a run from its trace: what each working agent waits for right now
 * (a model turn, a tool call, its subagents) and since when, and the run's counts for a summary.
 * Times are the follower's own: an event's `occurredAt` is moved onto this machine's clock by the
 * smallest delay seen so far, so a server whose clock is off does not show negative seconds.
 */
import type { RunOutcome, TraceEvent } from '../contract/agent.js';

export interface Activity {
  agent: string;
  /** `model turn 3`, `scrape https://…`, `working`. */
  doing: string;
  /** Since when, on this machine's clock (ms since 1970). */
  since: number;
}

export interface RunSummary {
  outcome: RunOutcome | undefined;
  durationMs: number;
  modelTurns: number;
  toolCalls: number;
  credits: number | undefined;
  snapshots: number;
}

interface AgentState {
  name: string;
  /** Tool calls started and not finished, in the order started. */
  calls: Map<string, { doing: string; since: number }>;
  doing: string;
  since: number;
}

/** The one-line gist of a tool call's parameters: the URL or the query. */
export function toolTarget(parameters: unknown): string {
  if (!parameters || typeof parameters !== 'object') return '';
  const { url, query, task } = parameters as Record<string, unknown>;
  const target = url ?? query ?? task;
  return typeof target === 'string' ? target : '';
}

export class AgentRunView {
  private readonly agents = new Map<string, AgentState>();
  private readonly toolStarts = new Map<string, number>();
  /** Smallest (arrival - occurredAt) seen: the server's clock offset plus the least delay. */
  private offset: number | undefined;
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  private outcome: RunOutcome | undefined;
  private modelTurns = 0;
  private toolCalls = 0;
  private readonly snapshots = new Set<string>();
  credits: number | undefined;

  constructor(readonly maxCredits?: number) {}

  /**
   * When the event happened, on the producer's clock (durations are differences of these);
   * learns the offset to this machine's clock on the way.
   */
  private occurred(event: TraceEvent, arrivedAt: number): number {
    const occurred = Date.parse(event.occurredAt);
    if (!Number.isFinite(occurred)) return arrivedAt - (this.offset ?? 0);
    const delay = arrivedAt - occurred;
    if (this.offset === undefined || delay < this.offset) this.offset = delay;
    return occurred;
  }

  /** A producer's time on this machine's clock. */
  private local(time: number): number {
    return time + (this.offset ?? 0);
  }

  /** Takes in an event as it arrives; returns the tool call's duration for `tool_call.finished`. */
  see(event: TraceEvent, arrivedAt: number): { durationMs?: number } {
    const at = this.occurred(event, arrivedAt);
    this.startedAt ??= at;
    const agent = this.agents.get(event.agent.id);
    switch (event.type) {
      case 'agent.started':
        this.agents.set(event.agent.id, { name: event.agent.name, calls: new Map(), doing: 'working', since: at });
        return {};
      case 'agent.finished':
        this.agents.delete(event.agent.id);
        return {};
      case 'run.finished':
        this.agents.clear();
        this.outcome = event.outcome;
        this.endedAt = at;
        return {};
      case 'progress.reported':
        if (event.modelTurn !== undefined) {
          this.modelTurns++;
          if (agent) Object.assign(agent, { doing: `model turn ${event.modelTurn}`, since: at });
        }
        return {};
      case 'tool_call.started': {
        this.toolStarts.set(event.toolCallId, at);
        const target = toolTarget(event.parameters);
        agent?.calls.set(event.toolCallId, {
          doing: event.toolName === 'wait_for_subagents' ? 'waiting for subagents' : `${event.toolName}${target ? ` ${target}` : ''}`,
          since: at,
        });
        return {};
      }
      case 'tool_call.finished': {
        this.toolCalls++;
        const started = this.toolStarts.get(event.toolCallId);
        this.toolStarts.delete(event.toolCallId);
        if (agent?.calls.delete(event.toolCallId) && agent.calls.size === 0) Object.assign(agent, { doing: 'working', since: at });
        const durationMs = event.durationMs ?? (started === undefined ? undefined : at - started);
        return durationMs === undefined ? {} : { durationMs };
      }
      case 'artifact.updated':
        this.snapshots.add(event.artifact.snapshotId);
        return {};
      default:
        return {};
    }
  }

  /** What each agent at work waits for now: its latest open tool call, else its model turn. */
  activities(): Activity[] {
    return [...this.agents.values()].map((agent) => {
      const open = [...agent.calls.values()].at(-1);
      return { agent: agent.name, doing: open?.doing ?? agent.doing, since: this.local(open?.since ?? agent.since) };
    });
  }

  get finished(): boolean {
    return this.outcome !== undefined;
  }

  summary(now: number): RunSummary {
    return {
      outcome: this.outcome,
      durationMs: this.endedAt !== undefined && this.startedAt !== undefined ? this.endedAt - this.startedAt : this.elapsed(now),
      modelTurns: this.modelTurns,
      toolCalls: this.toolCalls,
      credits: this.credits,
      snapshots: this.snapshots.size,
    };
  }

  /** Since the first event, on this machine's clock. */
  elapsed(now: number): number {
    return this.startedAt === undefined ? 0 : now - this.local(this.startedAt);
  }
}
