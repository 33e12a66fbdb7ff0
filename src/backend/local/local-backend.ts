/** The Backend of the embedded engine: engine functions called in this process. */
import type { ScrapeContext } from '../../engine/scrape/scrape.js';
import { databasePath, openDatabase, type Db } from '../../engine/store/database.js';
import { scrapeStore, type ScrapeStore } from '../../engine/store/scrape-cache.js';
import type { OrganizationThreatPolicy } from '../../engine/threat/threat-protection.js';
import { checkStore, type CheckRecord } from '../../engine/monitors/check-store.js';
import type { CheckContext } from '../../engine/monitors/run-check.js';
import { monitorStore, type MonitorStore, type StoredMonitor } from '../../engine/monitors/monitor-store.js';
import { monitorResource } from '../../engine/monitors/resource.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { Backend } from '../backend.js';

/** The embedded engine has one team; `serve` gives each key's team its own. */
export const LOCAL_TEAM = 'local';

// The fetching and content pipeline loads on first use: listing monitors does not need it.
const scrapeModule = () => import('../../engine/scrape/scrape.js');
const crawlModule = () => import('../../engine/crawl/crawl.js');
const runCheck: typeof import('../../engine/monitors/run-check.js').runCheck = async (...args) => (await import('../../engine/monitors/run-check.js')).runCheck(...args);

export interface LocalBackendOptions {
  version: string;
  threatPolicy?: OrganizationThreatPolicy;
  env: Readonly<Record<string, string | undefined>>;
  now(): Date;
}

export function localBackend(options: LocalBackendOptions): Backend {
  let db: Db | undefined;
  let store: ScrapeStore | undefined;
  let monitors: MonitorStore | undefined;
  // The database opens on first use: a command that fails validation never creates it.
  const openDb = () => (db ??= openDatabase(databasePath(options.env)));
  const openStore = () => (store ??= scrapeStore(openDb()));
  const openMonitors = () => (monitors ??= monitorStore(openDb()));
  const resource = (monitor: StoredMonitor) => monitorResource(monitor, options.now());
  const existing = (idOrName: string) => {
    const monitor = openMonitors().find(LOCAL_TEAM, idOrName);
    if (!monitor) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { monitor: idOrName } });
    return monitor;
  };
  const alive = (id: string) => {
    const monitor = existing(id);
    if (monitor.status === 'deleted') throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { monitor: id, reason: 'the monitor is deleted' } });
    return monitor;
  };
  const contextFor = (signal?: AbortSignal): ScrapeContext => ({
    version: options.version,
    now: options.now,
    store: openStore(),
    ...(options.threatPolicy && { threatPolicy: options.threatPolicy }),
    ...(signal && { signal }),
  });
  const checkContext = (): CheckContext => ({ checks: checkStore(openDb()), scrape: contextFor(), now: options.now });
  return {
    description: 'the local engine',
    scrape: async (url, scrapeOptions, signal) => (await scrapeModule()).scrape({ url, options: scrapeOptions }, contextFor(signal)),
    crawl: async (url, crawlOptions, scrapeOptions, onPage, signal) => (await crawlModule()).crawl(url, crawlOptions, scrapeOptions, contextFor(signal), onPage),
    listMonitors: async (list = {}) => openMonitors().list(LOCAL_TEAM, list).map(resource),
    getMonitor: async (idOrName) => resource(existing(idOrName)),
    createMonitor: async (definition) => {
      if (openMonitors().find(LOCAL_TEAM, definition.name)) {
        throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { name: definition.name, reason: 'a monitor with this name exists' } });
      }
      return resource(openMonitors().insert(LOCAL_TEAM, definition, options.now()));
    },
    updateMonitor: async (id, change) => {
      const monitor = alive(id);
      let updated = monitor;
      if (change.definition) updated = openMonitors().update(LOCAL_TEAM, monitor.id, change.definition, options.now());
      if (change.status) updated = openMonitors().setStatus(LOCAL_TEAM, monitor.id, change.status, options.now());
      return resource(updated);
    },
    runMonitor: async (idOrName) => {
      const monitor = alive(idOrName);
      if (monitor.status === 'paused') {
        throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { monitor: monitor.id, reason: 'the monitor is paused' } });
      }
      return runCheck(checkContext(), monitor, 'manual');
    },
    runDue: async () => {
      const now = options.now();
      const due = openMonitors()
        .list(LOCAL_TEAM)
        .filter((monitor) => monitor.status === 'active' && monitor.nextRunAt !== null && monitor.nextRunAt <= now.toISOString());
      const checks: CheckRecord[] = [];
      // One after another: a system cron job should not hit many sites at once.
      for (const monitor of due) checks.push(await runCheck(checkContext(), monitor, 'scheduled'));
      return checks;
    },
    listChecks: async (idOrName) => checkStore(openDb()).list(existing(idOrName).id),
    getCheck: async (idOrName, checkId, status) => {
      const monitor = existing(idOrName);
      const checks = checkStore(openDb());
      const check = checks.get(monitor.id, checkId);
      if (!check) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { check: checkId } });
      return { ...check, pages: checks.pages(check.id, status) };
    },
    deleteMonitor: async (id) => resource(openMonitors().setStatus(LOCAL_TEAM, alive(id).id, 'deleted', options.now())),
    close: async () => {
      db?.close();
      db = undefined;
      store = undefined;
      monitors = undefined;
    },
  };
}
