/**
 * The command line's Backend on the embedded engine: the `local` team's services, with what only
 * a command needs on top: a check run to its end with its notifications delivered, crawls that
 * run inside the command (not stored as jobs), and the browser closed when the command ends.
 */
import { closeBrowserIfOpen } from '../../engine/browser/lifetime.js';
import { refusePrivateTargets } from '../../engine/fetch/network-policy.js';
import { UsageError } from '../../errors/webwatch-error.js';
import type { Backend } from '../../services/interfaces.js';
import { teamServices } from '../../services/team-services.js';
import { interactStatesDir, LOCAL_TEAM, type TeamOptions } from '../../services/team.js';

export { DELIVERY_WAIT_DEFAULT_SECONDS } from '../../services/team.js';

export interface LocalBackendOptions extends Omit<TeamOptions, 'team' | 'keyId' | 'exactMonitorRefs' | 'checkUrl' | 'publicAddressesOnly'> {
  /** serve's private-network rule, for a server whose clients are not the machine's user (mcp --http). */
  publicTargetsOnly?: boolean;
  /** close() also stops the process's browser (a command ends with its backend). */
  closesBrowser?: boolean;
  /** Interact code runs in bubblewrap, as serve runs its callers' (a model's code, over MCP). */
  sandboxedCode?: boolean;
}

/** Crawl jobs are stored by serve: the command line's crawls run in its own process. */
const notStored = async (): Promise<never> => {
  throw new UsageError('on the embedded engine a crawl runs inside the command that started it and is not stored, so it has no id to read or cancel', {
    suggestion: 'run webwatch serve and give --api-url (or WEBWATCH_API_URL) to start crawl jobs you can detach from, read and cancel',
  });
};

export function localBackend(options: LocalBackendOptions): Backend {
  const { publicTargetsOnly, closesBrowser, sandboxedCode, ...team } = options;
  const services = teamServices({
    ...team,
    ...(publicTargetsOnly && { checkUrl: refusePrivateTargets, publicAddressesOnly: true }),
    ...(sandboxedCode && { interact: { policy: 'sandboxed', statesDir: interactStatesDir(team.env, LOCAL_TEAM) } }),
  });
  const { checks } = services;
  return {
    description: 'the local engine',
    inProcess: true,
    scrape: services.scrape,
    parse: services.parse,
    interact: services.interact,
    crawl: {
      run: (url, crawlOptions, scrapeOptions, onPage, signal) => services.crawl.run(url, crawlOptions, scrapeOptions, onPage, signal),
      start: notStored,
      status: notStored,
      cancel: notStored,
      errors: notStored,
      active: notStored,
    },
    map: services.map,
    search: services.search,
    usage: services.usage,
    monitors: services.monitors,
    checks: {
      list: checks.list,
      get: checks.get,
      report: checks.report,
      run: async (idOrName, run) => {
        const check = await (await checks.start(idOrName)).done;
        // The check is saved: what remains is the notifications' first attempts.
        run?.onSaved?.(check);
        await checks.deliverNotifications();
        // Read again: the deliveries have moved the check's notificationStatus on.
        return checks.reread(check);
      },
      runDue: async () => {
        const ran = await checks.runDue();
        await checks.deliverNotifications();
        return Promise.all(ran.map(checks.reread));
      },
    },
    agents: services.agents,
    extract: services.extract,
    close: async () => {
      await services.close();
      if (closesBrowser) await closeBrowserIfOpen();
    },
  };
}
