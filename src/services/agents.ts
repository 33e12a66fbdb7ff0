/**
 * Agent and extract jobs of one team: started in this process (the command line) or queued for
 * a worker (serve's routes, through `jobs`), read as the wire shows them, traced, cancelled. The
 * job machinery (engine/agent) loads with the first job.
 */
import type { AgentJobs } from '../engine/agent/agent-jobs.js';
import { agentListItem, agentStatusDocument, extractStatusDocument } from '../engine/agent/wire.js';
import type { AgentService, ExtractService } from './interfaces.js';
import type { Team } from './team.js';

/** Agent jobs listed at once. */
const AGENT_LIST_PAGE = 50;

export interface TeamAgentService extends AgentService {
  /** The team's agent and extract jobs on this engine (serve's routes queue them, its worker runs them). */
  jobs(): Promise<AgentJobs>;
  /** Ends the agent runs of this process (serve stopping): they finish failed, `internal`. */
  stopAll(): Promise<void>;
  /** Waits for this process's agent runs to end. */
  settle(): Promise<void>;
}

export function agentService(team: Team): TeamAgentService {
  let agentJobs: AgentJobs | undefined;
  const jobs = async () => {
    if (!agentJobs) {
      const { agentJobs: jobsOf } = await import('../engine/agent/agent-jobs.js');
      const model = team.model('agent');
      agentJobs = jobsOf({
        db: await team.db(),
        team: team.name,
        now: team.now,
        scrape: await team.scrapeContext(),
        ...(model && { llm: model }),
        ...(team.searchProvider && { search: team.searchProvider }),
      });
    }
    return agentJobs;
  };
  return {
    jobs,
    stopAll: async () => {
      await agentJobs?.stopAll();
    },
    settle: async () => {
      if (agentJobs) await Promise.allSettled(agentJobs.running());
    },
    start: async (request) => ({ id: (await (await jobs()).start(request)).job.id }),
    get: async (id) => agentStatusDocument(await (await jobs()).get(id)),
    list: async (list = {}) => {
      const found = await (await jobs()).list({ limit: AGENT_LIST_PAGE, ...(list.before !== undefined && { before: list.before }) });
      const last = found.length === AGENT_LIST_PAGE ? found[found.length - 1] : undefined;
      return { agents: found.map(agentListItem), ...(last && { next: `?before=${Date.parse(last.createdAt)}` }) };
    },
    trace: async (id, since, wait) => {
      const { job, events } = await (await jobs()).trace(id, since, wait);
      return { events, creditsUsed: job.creditsUsed };
    },
    snapshot: async (id, snapshotId) => (await jobs()).snapshot(id, snapshotId),
    cancel: async (id) => {
      await (await jobs()).cancel(id);
    },
  };
}

export function extractService(agents: Pick<TeamAgentService, 'jobs'>): ExtractService {
  return {
    start: async (request) => ({ id: (await (await agents.jobs()).startExtract(request)).job.id }),
    get: async (id) => extractStatusDocument(await (await agents.jobs()).getExtract(id)),
  };
}
