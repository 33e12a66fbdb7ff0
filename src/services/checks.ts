/**
 * Checks of one team's monitors: run now (in this process, or queued for a worker of serve),
 * the scheduled ones due, read with their pages and deliveries, and as an HTML report; each
 * finished check's pages fetched booked as its credits. The command line names a check by id,
 * unique id prefix or `latest`; serve by id.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { artifactsDir, KEPT_DIR } from '../engine/browser/artifacts.js';
import type { Judge } from '../engine/judge/judge.js';
import { checkStore, type CheckRecord } from '../engine/monitors/check-store.js';
import type { StoredMonitor } from '../engine/monitors/monitor-store.js';
import type { CheckContext } from '../engine/monitors/run-check.js';
import { outboxStore } from '../engine/notify/outbox.js';
import type { ClaimedCheck } from '../engine/scheduler/scheduler.js';
import type { RunContext } from '../engine/store/work-queue.js';
import { UsageError, WebwatchError } from '../errors/webwatch-error.js';
import type { Env } from '../lib/env.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import type { CheckService } from './interfaces.js';
import { resolveCheckRef } from './monitor-ref.js';
import type { TeamMonitorService } from './monitors.js';
import { DELIVERY_WAIT_DEFAULT_SECONDS, once, type Team } from './team.js';

const checkRunner = once(() => import('../engine/monitors/run-check.js'));

/** The checks of a team's engine: what a command, serve's routes and its worker ask of them. */
export interface TeamCheckService extends Omit<CheckService, 'run'> {
  /** Starts a check and returns at once with the running check; `done` settles when it ends. */
  start(idOrName: string): Promise<{ check: CheckRecord; done: Promise<CheckRecord> }>;
  /** Runs the scheduled check of a slot the scheduler claimed. */
  runScheduled(claim: ClaimedCheck): Promise<CheckRecord>;
  /** Queues a manual check for whichever worker claims it (serve); the check as queued. */
  queue(idOrName: string, context: RunContext): Promise<CheckRecord>;
  /** Runs a queued check this worker claimed; undefined when it had ended meanwhile. */
  runQueued(checkId: string, monitorId: string): Promise<CheckRecord | undefined>;
  /** Delivers what the outbox holds (the checks just run, and older ones), for a bounded time. */
  deliverNotifications(): Promise<void>;
  /** The check as stored now (its notificationStatus moves on as deliveries are made). */
  reread(check: CheckRecord): Promise<CheckRecord>;
}

export function checkService(team: Team, monitors: TeamMonitorService): TeamCheckService {
  const { options } = team;
  const store = async () => checkStore(await team.db());
  /** A check of the monitor by id; on the command line also by id prefix or `latest`. */
  const checkOf = async (checks: ReturnType<typeof checkStore>, monitor: StoredMonitor, checkId: string): Promise<CheckRecord> => {
    const check = await checks.get(monitor.id, checkId);
    if (check) return check;
    if (options.exactMonitorRefs) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { check: checkId } });
    return resolveCheckRef(checkId, await checks.list(monitor.id), monitor.definition.name);
  };
  /** A check's pages fetched are its credits, counted once it has finished. */
  const counted = async (check: CheckRecord) => {
    await team.spent('check', check.actualCredits ?? 0);
    return check;
  };
  // One judge for the team's life, so its model client is made once, not per page.
  const judgeModel = team.model('judge');
  let modelJudge: Promise<Judge> | undefined;
  // Read when a check starts, so that a bad value fails the checks it concerns and no other command.
  const checkContext = async (): Promise<CheckContext> => ({
    ...withConversionThreads(options.env),
    checks: await store(),
    scrape: await team.scrapeContext(),
    now: team.now,
    ...(judgeModel && {
      judge: async (input) => (await (modelJudge ??= import('../engine/judge/llm-judge.js').then(({ llmJudge }) => llmJudge(judgeModel))))(input),
    }),
    ...(options.notifications?.onlyMeaningful && { onlyMeaningful: true }),
    ...(team.searchProvider && { search: team.searchProvider }),
  });
  const keptDir = () => join(artifactsDir(options.env, team.name), KEPT_DIR);

  return {
    start: async (idOrName) => {
      const monitor = await monitors.runnable(idOrName);
      const started = await (await checkRunner()).beginCheck(await checkContext(), monitor, 'manual');
      return { ...started, done: started.done.then(counted) };
    },
    runDue: async () => {
      const [{ runClaimedCheck }, { runDueOnce }] = await Promise.all([checkRunner(), import('../engine/scheduler/scheduler.js')]);
      const context = await checkContext();
      return runDueOnce({
        db: await team.db(),
        checks: context.checks,
        now: team.now,
        team: team.name,
        privateTargetsAllowed: () => !context.scrape.publicAddressesOnly,
        run: async (claim) => counted(await runClaimedCheck(context, claim)),
      });
    },
    runScheduled: async (claim) => counted(await (await checkRunner()).runClaimedCheck(await checkContext(), claim)),
    queue: async (idOrName, context) => (await store()).enqueue(await monitors.runnable(idOrName), team.now(), context),
    runQueued: async (checkId, monitorId) => {
      const monitor = await monitors.find(monitorId);
      if (!monitor || monitor.status === 'deleted') {
        await (await store()).abandon(checkId, 'the monitor was deleted before its check ran', team.now());
        return undefined;
      }
      return counted(await (await checkRunner()).runClaimedCheck(await checkContext(), { monitor, checkId, slot: '' }));
    },
    deliverNotifications: async () => {
      const { deliverUntil } = await import('../engine/notify/deliver.js');
      const waitSeconds = options.notifications?.waitSeconds ?? DELIVERY_WAIT_DEFAULT_SECONDS;
      await deliverUntil({
        outbox: outboxStore(await team.db()),
        now: team.now,
        version: options.version,
        waitMs: waitSeconds * 1000,
        ...(options.notifications?.secret && { secret: options.notifications.secret }),
        ...(options.notifications?.smtp && { smtp: options.notifications.smtp }),
      });
    },
    reread: async (check) => (await (await store()).get(check.monitorId, check.id)) ?? check,
    list: async (idOrName) => (await store()).list((await monitors.existing(idOrName)).id),
    get: async (idOrName, checkId, status) => {
      const monitor = await monitors.existing(idOrName);
      const checks = await store();
      const check = await checkOf(checks, monitor, checkId);
      // A kept screenshot as the file URL of this machine (serve turns it into a URL of its own).
      const kept = keptDir();
      const pages = (await checks.pages(check.id, status)).map((page) =>
        page.screenshot ? { ...page, screenshot: pathToFileURL(join(kept, page.screenshot)).href } : page,
      );
      return { ...check, pages, deliveries: await outboxStore(await team.db()).deliveries(check.id) };
    },
    report: async (idOrName, checkId) => {
      const monitor = await monitors.existing(idOrName);
      const checks = await store();
      const check = await checkOf(checks, monitor, checkId);
      const { checkReportHtml } = await import('../engine/report/check-report.js');
      return { check, html: await checkReportHtml({ checks, keptDir: keptDir(), version: options.version, now: team.now }, monitor, check) };
    },
  };
}

/** WEBWATCH_CONVERSION_THREADS: the worker threads of large checks, where the cores the system reports are not the ones webwatch may use (a container's CPU quota). */
function withConversionThreads(env: Env): { conversionThreads?: number } {
  const value = env.WEBWATCH_CONVERSION_THREADS;
  if (value === undefined || value === '') return {};
  if (!/^\d+$/.test(value) || Number(value) > 16) {
    throw new UsageError(`WEBWATCH_CONVERSION_THREADS must be a whole number from 0 to 16, not ${JSON.stringify(value)}`);
  }
  return { conversionThreads: Number(value) };
}
