/**
 * The command line's Backend on the embedded engine: the `local` team's engine (team-engine.ts),
 * with what only a command needs on top: monitors named by id prefix or name, a check run to
 * its end with its notifications delivered, agent jobs as the wire shows them, and the browser
 * closed when the command ends.
 */
import { closeBrowserIfOpen } from '../../engine/browser/lifetime.js';
import { agentListItem, agentStatusDocument, extractStatusDocument } from '../../engine/agent/wire.js';
import { UsageError } from '../../errors/webwatch-error.js';
import type { Backend } from '../backend.js';
import { teamEngine, type TeamEngineOptions } from './team-engine.js';

export { DELIVERY_WAIT_DEFAULT_SECONDS, LOCAL_TEAM } from './team-engine.js';

/** Agent jobs listed at once. */
const AGENT_LIST_PAGE = 50;

export interface LocalBackendOptions extends Omit<TeamEngineOptions, 'team' | 'keyId' | 'exactMonitorRefs'> {
  /** close() also stops the process's browser (a command ends with its backend). */
  closesBrowser?: boolean;
}

/** Crawl jobs are stored by serve: the command line's crawls run in its own process. */
const notStored = async (): Promise<never> => {
  throw new UsageError('on the embedded engine a crawl runs inside the command that started it and is not stored, so it has no id to read or cancel', {
    suggestion: 'run webwatch serve and give --api-url (or WEBWATCH_API_URL) to start crawl jobs you can detach from, read and cancel',
  });
};

export function localBackend(options: LocalBackendOptions): Backend {
  const engine = teamEngine(options);
  return {
    description: 'the local engine',
    scrape: engine.scrape,
    crawl: engine.crawl,
    async scrapeMany(urls, scrapeOptions, onResult, signal) {
      const { scrapeUrls } = await import('../../core/scrape.js');
      let done = 0;
      return scrapeUrls(this, urls, scrapeOptions, () => onResult?.(++done), signal);
    },
    map: engine.map,
    search: engine.search,
    usage: engine.usage,
    startCrawl: notStored,
    crawlStatus: notStored,
    cancelCrawl: notStored,
    crawlErrors: notStored,
    activeCrawls: notStored,
    listMonitors: engine.listMonitors,
    getMonitor: engine.getMonitor,
    createMonitor: engine.createMonitor,
    updateMonitor: engine.updateMonitor,
    deleteMonitor: engine.deleteMonitor,
    listChecks: engine.listChecks,
    getCheck: engine.getCheck,
    checkReport: engine.checkReport,
    runMonitor: async (idOrName, run) => {
      const check = await (await engine.startRun(idOrName)).done;
      // The check is saved: what remains is the notifications' first attempts.
      run?.onSaved?.(check);
      await engine.deliverNotifications();
      // Read again: the deliveries have moved the check's notificationStatus on.
      return engine.reread(check);
    },
    runDue: async () => {
      const ran = await engine.runDue();
      await engine.deliverNotifications();
      return Promise.all(ran.map(engine.reread));
    },
    startAgent: async (request) => ({ id: (await (await engine.agents()).start(request)).job.id }),
    getAgent: async (id) => agentStatusDocument(await (await engine.agents()).get(id)),
    listAgents: async (list = {}) => {
      const jobs = await (await engine.agents()).list({ limit: AGENT_LIST_PAGE, ...(list.before !== undefined && { before: list.before }) });
      const last = jobs.length === AGENT_LIST_PAGE ? jobs[jobs.length - 1] : undefined;
      return { agents: jobs.map(agentListItem), ...(last && { next: `?before=${Date.parse(last.createdAt)}` }) };
    },
    agentTrace: async (id, since, wait) => {
      const { job, events } = await (await engine.agents()).trace(id, since, wait);
      return { events, creditsUsed: job.creditsUsed };
    },
    agentSnapshot: async (id, snapshotId) => (await engine.agents()).snapshot(id, snapshotId),
    cancelAgent: async (id) => {
      await (await engine.agents()).cancel(id);
    },
    startExtract: async (request) => ({ id: (await (await engine.agents()).startExtract(request)).job.id }),
    getExtract: async (id) => extractStatusDocument(await (await engine.agents()).getExtract(id)),
    close: async () => {
      await engine.close();
      if (options.closesBrowser) await closeBrowserIfOpen();
    },
  };
}
