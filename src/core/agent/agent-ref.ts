/**
 * An agent job named on the command line: its whole id, or a unique prefix of it of at least 4
 * characters (as `agent list` shows 8), resolved among the team's jobs as git resolves commits.
 * The API itself takes whole ids only, so prefixes are looked up through the job list.
 */
import type { AgentService } from '../../services/interfaces.js';
import type { AgentListItem } from '../../contract/agent.js';
import { WebwatchError, UsageError } from '../../errors/webwatch-error.js';
import { isJobId } from '../../spec/agent.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { MIN_ID_PREFIX as MIN_PREFIX, resolveIdPrefix } from '../../services/id-prefix.js';

/** Pages of the list read at most (50 jobs each on serve; jobs are kept 7 days). */
const MAX_PAGES = 40;

const LIST_HINT = 'webwatch agent list shows the ids';

/** The whole id of the job `ref` names, or an error that says why it names none. */
export async function resolveAgentRef(backend: { agents: Pick<AgentService, 'list'> }, ref: string): Promise<string> {
  const given = ref.trim().toLowerCase();
  if (isJobId(given)) return given;
  if (!/^[0-9a-f-]+$/.test(given)) {
    throw new UsageError(`"${ref}" is not an agent job id: ids are hexadecimal UUIDs`, {
      suggestion: `give the id or its first ${MIN_PREFIX} or more characters; ${LIST_HINT}`,
    });
  }
  if (given.length < MIN_PREFIX) {
    throw new UsageError(`"${ref}" is too short to name an agent job: give at least ${MIN_PREFIX} characters of its id`, { suggestion: LIST_HINT });
  }
  const jobs: AgentListItem[] = [];
  let before: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { agents, next } = await backend.agents.list(before === undefined ? {} : { before });
    jobs.push(...agents);
    const last = agents.at(-1);
    if (!next || !last) break;
    before = Date.parse(last.createdAt);
  }
  if (jobs.length === 0)
    throw new WebwatchError(ERROR_MESSAGES.agentNotFound, {
      status: 404,
      details: { agent: ref, reason: 'no agent job of this team has this id or id prefix' },
      suggestion: 'there are no agent jobs yet: start one with webwatch agent run "<prompt>"',
    });
  return resolveIdPrefix(given, jobs, {
    what: 'agent job',
    field: 'agent',
    describe: (job) => job.targetHint,
    listHint: LIST_HINT,
    notFound: ERROR_MESSAGES.agentNotFound,
  }).id;
}
