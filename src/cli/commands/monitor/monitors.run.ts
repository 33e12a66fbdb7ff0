/** The monitor commands that act on a backend: apply, diff, create, list, get, pause, resume, delete. */
import { fileURLToPath } from 'node:url';
import { diffText } from '../../../engine/diff/json-diff.js';
import { z } from 'zod';
import { formatLocated } from '../../../spec/located-line.js';
import type { InvalidDefinitionsError } from '../../../core/apply/apply.js';
import { hasChanges, planSummary, type PlanEntry } from '../../../core/apply/plan.js';
import { reportedProblems } from '../../../ui/formats/reported-problems.js';
import type { CheckRecord } from '../../../contract/checks.js';
import type { MonitorResource } from '../../../contract/monitor.js';
import { EXIT, type ExitCode } from '../../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../../errors/webwatch-error.js';
import { DELIVERY_MAX_ATTEMPTS } from '../../../spec/limits.js';
import type { NormalizedMonitor } from '../../../spec/monitor.js';
import { invalidDefinitionsMarkdown, planMarkdown } from '../../../ui/formats/plan-markdown.js';
import { validationAnnotations } from '../../../ui/formats/validation-annotations.js';
import type { Output } from '../../../ui/output.js';
import { redactChange, redactDefinition } from '../../../ui/redact.js';
import { startProgress } from '../../../ui/progress.js';
import { renderRows } from '../../../ui/table.js';
import { escapeControls, styled, styledLine } from '../../../ui/terminal-text.js';
import { withBackend } from '../../backend.js';
import { interruptible } from '../../interrupt.js';
import type { CommandContext } from '../../context.js';
import { parseFlags } from '../../flags.js';
import { problemFormat, reportRoot } from '../../problem-format.js';
import { plural } from '../../../lib/plural.js';

const applyFlags = z.object({
  file: z.array(z.string()),
  dryRun: z.boolean().default(false),
  prune: z.boolean().default(false),
  yes: z.boolean().default(false),
  detailedExitcode: z.boolean().default(false),
  format: z.enum(['text', 'markdown', 'github']).optional(),
});
/** diff never changes anything: no --dry-run, no --yes. */
const diffFlags = applyFlags.omit({ dryRun: true, yes: true });

type ApplyFormat = z.infer<typeof applyFlags>['format'];

/** What the output of apply and diff looks like: the plan's form, and the form of file problems. */
function applyOutput(context: CommandContext, format: ApplyFormat) {
  if (format !== undefined && context.output.json) throw new UsageError('give --format or --json, not both');
  return {
    plan: format === 'markdown' ? ('markdown' as const) : ('text' as const),
    // Markdown is for the plan on stdout; the problems on stderr are annotations on GitHub Actions.
    problems: problemFormat(format === 'markdown' ? undefined : format, context.io.env, context.output.json),
  };
}

/**
 * Invalid files: the same located lines as `monitor validate` (or annotations) on stderr, with
 * --format markdown the same problems as a comment on stdout, then exit 2.
 */
function reportInvalid(context: CommandContext, error: InvalidDefinitionsError, format: ApplyFormat, consequence: string): ExitCode {
  const { io, output } = context;
  if (output.json) {
    output.jsonDocument({ success: false, error: error.message, details: error.report });
    return EXIT.usage;
  }
  const shape = applyOutput(context, format);
  if (shape.problems === 'github') {
    for (const annotation of validationAnnotations(error.report, reportRoot(io), io.cwd())) output.problem(styled(annotation));
  } else {
    // The same lines, in the same colours, as `monitor validate --print` says them on stderr.
    const style = output.errorStyle;
    for (const { file, error: problem } of reportedProblems(error.report))
      output.problem(styled(formatLocated(file, problem, { outside: escapeControls, where: style.bold, path: style.yellow })));
  }
  if (shape.plan === 'markdown') output.data(styled(invalidDefinitionsMarkdown(error.report, consequence)));
  output.problem(output.messageStyle.red(`error: ${error.message}`));
  return EXIT.usage;
}

/** The valid definitions of the files, or the exit code after reporting why they are not. */
// Reading and validating definitions (yaml, the interface's schemas) loads only for the
// commands that take files: `run`, `list` and the others start faster without it.
const applying = () => import('../../../core/apply/apply.js');

async function definitionsOrReport(
  context: CommandContext,
  files: string[],
  format?: ApplyFormat,
  consequence = 'Nothing was changed',
): Promise<NormalizedMonitor[] | ExitCode> {
  const { InvalidDefinitionsError, loadDefinitions } = await applying();
  try {
    return await loadDefinitions(files, context.io);
  } catch (error) {
    if (error instanceof InvalidDefinitionsError) return reportInvalid(context, error, format, consequence);
    throw error;
  }
}

const SYMBOL = { create: '+', update: '~', unchanged: '=', delete: '-' } as const;

/**
 * The plan on stdout. `reported`: the monitors already said, with their changes, on the same
 * terminal as they were applied (reportApplied), which are not said twice.
 */
function renderPlan(output: Output, plan: readonly PlanEntry[], applied: boolean, reported: (entry: PlanEntry) => boolean = () => false) {
  const style = output.style;
  const colour = { create: style.green, update: style.yellow, unchanged: style.dim, delete: style.red } as const;
  for (const entry of plan) {
    if (reported(entry)) continue;
    const line = `${SYMBOL[entry.action]} ${entry.action.padEnd(9)} ${entry.name}${entry.id ? `  (${entry.id})` : ''}`;
    output.data(styled(colour[entry.action](output.dataPiece(line))));
    for (const change of entry.changes.map(redactChange)) {
      output.data(`    ${change.path}: ${JSON.stringify(change.from)} -> ${JSON.stringify(change.to)}`);
    }
  }
  renderPlanSummary(output, plan, applied);
}

/** The counts, on stderr whatever form the plan takes on stdout. */
function renderPlanSummary(output: Output, plan: readonly PlanEntry[], applied: boolean) {
  const s = planSummary(plan);
  output.info(
    applied
      ? `Applied: ${s.created} created, ${s.updated} updated, ${s.unchanged} unchanged, ${s.deleted} deleted.`
      : `Plan: ${s.created} to create, ${s.updated} to update, ${s.unchanged} unchanged, ${s.deleted} to delete.`,
  );
}

const DONE = { create: 'created', update: 'updated', unchanged: 'unchanged', delete: 'deleted' } as const;
const MEANWHILE = { created: 'another process created it meanwhile', changed: 'another process changed or deleted it meanwhile' } as const;

/** Whether reportApplied says this monitor: unchanged ones are quiet unless another process was involved. */
const reportsApplied = (entry: PlanEntry) => entry.action !== 'unchanged' || entry.meanwhile !== undefined;

/**
 * One line on stderr per monitor as soon as it is applied, so an apply that is killed or fails
 * half-way has said what it did; with its changes under it when stdout is the same terminal
 * (the plan there then leaves it out: one line per monitor).
 */
function reportApplied(output: Output, entry: PlanEntry, withChanges: boolean) {
  if (!reportsApplied(entry)) return;
  const style = output.messageStyle;
  const colour = { create: style.green, update: style.yellow, unchanged: style.dim, delete: style.red } as const;
  const note = entry.meanwhile ? `: ${MEANWHILE[entry.meanwhile]}` : '';
  output.info(colour[entry.action](`${SYMBOL[entry.action]} ${DONE[entry.action]} ${entry.name}  (${entry.id})${note}`));
  if (withChanges)
    for (const change of entry.changes.map(redactChange)) output.info(`    ${change.path}: ${JSON.stringify(change.from)} -> ${JSON.stringify(change.to)}`);
}

const planJson = (plan: readonly PlanEntry[], applied: boolean) => ({
  plan: plan.map((entry) => ({
    action: entry.action,
    name: entry.name,
    id: entry.id,
    changes: entry.changes.map((c) => redactChange({ path: c.path, from: c.from, to: c.to })),
  })),
  applied,
  summary: planSummary(plan),
});

async function confirm(context: CommandContext, question: string, yes: boolean, refusal: string): Promise<boolean> {
  if (yes) return true;
  if (!context.output.interactive) throw new UsageError(refusal, { suggestion: 'add --yes to confirm in scripts' });
  // The question names monitors, whose names come from files or a server.
  const answer = await context.io.prompt(`${escapeControls(question)} [y/N] `);
  return /^y(es)?$/i.test(answer.trim());
}

export async function runApply(context: CommandContext, rawFlags: unknown, mode: 'apply' | 'diff'): Promise<ExitCode> {
  const flags = mode === 'apply' ? parseFlags(applyFlags, rawFlags) : { ...parseFlags(diffFlags, rawFlags), dryRun: true, yes: false };
  const { output } = context;
  const shape = applyOutput(context, flags.format);
  const { dryRun } = flags;
  const definitions = await definitionsOrReport(context, flags.file, flags.format, dryRun ? 'There is no plan' : 'Nothing was changed');
  if (typeof definitions === 'number') return definitions;
  const { executePlan, makePlan } = await applying();
  return withBackend(context, mode === 'apply' ? 'applying' : 'comparing', async (backend) => {
    let plan = await makePlan(backend, definitions, flags.prune);
    const deletions = plan.filter((entry) => entry.action === 'delete');
    let applied = false;
    // One terminal for both streams: each monitor applied is said once, as it is applied.
    const oneTerminal = output.tty && output.errorTty && !output.json && shape.plan !== 'markdown';
    if (!dryRun) {
      if (deletions.length > 0) {
        const names = deletions.map((entry) => entry.name).join(', ');
        const ok = await confirm(
          context,
          `Delete ${deletions.length} monitor${deletions.length === 1 ? '' : 's'} not in the files (${names})?`,
          flags.yes,
          `--prune would delete ${names}`,
        );
        if (!ok) {
          output.problem('nothing was changed');
          return EXIT.usage;
        }
      }
      plan = await executePlan(backend, plan, { onProgress: (entry) => reportApplied(output, entry, oneTerminal) });
      applied = true;
    }
    if (output.json) output.jsonDocument(planJson(plan, applied));
    else if (shape.plan === 'markdown') {
      output.data(styled(planMarkdown(plan, { applied })));
      renderPlanSummary(output, plan, applied);
    } else renderPlan(output, plan, applied, applied && oneTerminal ? reportsApplied : undefined);
    return flags.detailedExitcode && hasChanges(plan) ? EXIT.changesPending : EXIT.ok;
  });
}

const createFlags = z.object({ file: z.array(z.string()) });

export async function runCreate(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(createFlags, rawFlags);
  const definitions = await definitionsOrReport(context, flags.file);
  if (typeof definitions === 'number') return definitions;
  return withBackend(context, 'creating', async (backend) => {
    const created: MonitorResource[] = [];
    for (const definition of definitions) created.push(await backend.monitors.create(definition));
    if (context.output.json) context.output.jsonDocument(created.length === 1 ? created[0] : created);
    else for (const monitor of created) context.output.data(`${monitor.id}\t${monitor.name}`);
    return EXIT.ok;
  });
}

const summaryText = (monitor: MonitorResource) => {
  const s = monitor.lastCheckSummary;
  // Zeros before the first check (or null from an API that still sends it): nothing to say.
  if (!s || monitor.lastRunAt === null) return '';
  // What happened, briefly: only the counts that are not zero.
  const parts = [
    [s.changed, 'changed'],
    [s.new, 'new'],
    [s.removed, 'removed'],
    [s.error, s.error === 1 ? 'error' : 'errors'],
  ]
    .filter(([count]) => count !== 0)
    .map(([count, what]) => `${count} ${what}`);
  return `${parts.length > 0 ? parts.join(', ') : 'no change'} (${s.totalPages} page${s.totalPages === 1 ? '' : 's'})`;
};

const listFlags = z.object({ all: z.boolean().default(false) });

export async function runList(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(listFlags, rawFlags);
  return withBackend(context, 'listing', async (backend) => {
    const monitors = await backend.monitors.list({ includeDeleted: flags.all });
    const { output } = context;
    if (output.json) {
      output.jsonDocument(monitors.map((monitor) => redactDefinition(monitor)));
      return EXIT.ok;
    }
    const rows = monitors.map((m) => [m.id, m.name, m.status, `${m.schedule.cron} ${m.schedule.timezone}`, m.nextRunAt ?? '', summaryText(m)]);
    if (rows.length > 0) output.data(await renderRows(output, ['id', 'name', 'status', 'schedule', 'next run', 'last check'], rows));
    else output.info('no monitors');
    return EXIT.ok;
  });
}

export async function runGet(context: CommandContext, idOrName: string): Promise<ExitCode> {
  return withBackend(context, 'reading', async (backend) => {
    const monitor = redactDefinition(await backend.monitors.get(idOrName));
    if (context.output.json) context.output.jsonDocument(monitor);
    else context.output.data((await import('yaml')).stringify(monitor, { lineWidth: 0 }));
    return EXIT.ok;
  });
}

/** `monitor export`: definitions that `apply` reads back as unchanged, secrets as references. */
const exportFlags = z.object({ showSecrets: z.boolean().default(false) });

export async function runExport(context: CommandContext, idsOrNames: string[], rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(exportFlags, rawFlags);
  return withBackend(context, 'exporting', async (backend) => {
    const monitors =
      idsOrNames.length > 0 ? await Promise.all([...new Set(idsOrNames)].map((idOrName) => backend.monitors.get(idOrName))) : await backend.monitors.list();
    const { exportDefinitions } = await import('../../../core/export.js');
    const exported = await exportDefinitions(monitors, { showSecrets: flags.showSecrets });
    const { output } = context;
    if (output.json) {
      const { parseAllDocuments } = await import('yaml');
      output.jsonDocument({ definitions: parseAllDocuments(exported.yaml).map((document) => document.toJS()), secrets: exported.secrets });
    } else if (monitors.length > 0) {
      output.data(exported.yaml);
    }
    if (monitors.length === 0) output.info('no monitors to export');
    if (exported.secrets.length > 0) {
      output.info(`${exported.secrets.length} header value(s) written as \${VARIABLE} references (set them before applying; --show-secrets writes the values)`);
    }
    return EXIT.ok;
  });
}

/** delete's --yes; pause and resume declare no flag, and the default holds for them. */
const stateChangeFlags = z.object({ yes: z.boolean().default(false) });

export async function runStateChange(context: CommandContext, idOrName: string, change: 'pause' | 'resume' | 'delete', rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(stateChangeFlags, rawFlags);
  return withBackend(context, change === 'delete' ? 'deleting' : change === 'pause' ? 'pausing' : 'resuming', async (backend) => {
    const monitor = await backend.monitors.get(idOrName);
    let result: MonitorResource;
    if (change === 'delete') {
      const ok = await confirm(context, `Delete monitor ${monitor.name} (${monitor.id})?`, flags.yes, `deleting ${monitor.name} needs confirmation`);
      if (!ok) {
        context.output.problem('nothing was changed');
        return EXIT.usage;
      }
      result = await backend.monitors.delete(monitor.id);
    } else {
      result = await backend.monitors.update(monitor.id, { status: change === 'pause' ? 'paused' : 'active' });
    }
    if (context.output.json) context.output.jsonDocument(redactDefinition(result));
    else context.output.info(`${result.name} (${result.id}) is ${result.status}${result.nextRunAt ? `; next run ${result.nextRunAt}` : ''}`);
    return EXIT.ok;
  });
}

/**
 * Notifications that failed, or are being retried after an error, are said on stderr (also with
 * --json and --quiet): a check whose webhook never arrived must not look like a success.
 */
function reportDeliveryFailures(output: Output, check: CheckRecord): void {
  for (const [channel, state] of Object.entries(check.notificationStatus ?? {})) {
    if (!state?.lastError) continue;
    const what =
      state.failed > 0
        ? `${state.failed} deliver${state.failed === 1 ? 'y' : 'ies'} failed${state.attempts ? ` after ${state.attempts} attempt${state.attempts === 1 ? '' : 's'}` : ''}`
        : `${state.pending} deliver${state.pending === 1 ? 'y' : 'ies'} not made yet${state.attempts ? ` after attempt ${state.attempts} of ${DELIVERY_MAX_ATTEMPTS}` : ''} (the outbox retries ${state.pending === 1 ? 'it' : 'them'}: serve's scheduler, or the next monitor run --due)`;
    output.problem(styledLine`${output.messageStyle.yellow('warning:')} ${channel}: ${what}: ${state.lastError}`);
  }
}

const checkLine = (check: CheckRecord) => {
  // A check that has not finished has no counts yet (its summary is zeroed).
  const s = check.finishedAt ? check.summary : undefined;
  const counts = s
    ? `${s.changed} changed, ${s.new} new, ${s.removed} removed, ${s.same} same, ${plural(s.error, 'error')} (${plural(s.totalPages, 'page')})`
    : '';
  return `check ${check.id} ${check.status}${counts ? `: ${counts}` : ''}`;
};

const runNowFlags = z.object({ due: z.boolean().default(false), wait: z.boolean().default(false) });

export async function runMonitorNow(context: CommandContext, idOrName: string | undefined, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(runNowFlags, rawFlags);
  if (flags.due && idOrName) throw new UsageError('give a monitor or --due, not both');
  if (!flags.due && !idOrName) throw new UsageError('give a monitor to run, or --due to run every monitor that is due');
  if (flags.due) return runDue(context);
  return withBackend(context, 'checking', async (backend) => {
    const progress = await startProgress(context.io, context.output, `checking ${idOrName}`);
    // Ctrl-C while the check runs interrupts it, as ever; once it is saved, the command reports
    // it as it ended and leaves the notifications not yet delivered to the outbox.
    const interrupt = interruptible();
    let saved: CheckRecord | undefined;
    let check: CheckRecord;
    try {
      const interrupted = new Promise<undefined>((resolve) => interrupt.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
      const ran = backend.checks.run(idOrName!, {
        wait: flags.wait,
        onSaved: (done) => {
          saved = done;
          progress.update(`check ${done.status}; delivering its notifications`);
        },
      });
      const first = await Promise.race([ran, interrupted]);
      if (first === undefined) {
        if (!saved) throw new WebwatchError('interrupted', { exitCode: EXIT.interrupted, code: 'INTERRUPTED' });
        progress.stop();
        if (context.output.json) context.output.jsonDocument(saved);
        else context.output.data(checkLine(saved));
        context.output.problem(
          "interrupted while delivering the check's notifications: those not delivered stay in the outbox (serve's scheduler, or the next monitor run --due, delivers them)",
        );
        return EXIT.interrupted;
      }
      check = first;
    } finally {
      interrupt.dispose();
      progress.stop();
    }
    if (context.output.json) context.output.jsonDocument(check);
    else context.output.data(checkLine(check));
    reportDeliveryFailures(context.output, check);
    return check.status === 'failed' ? EXIT.failure : EXIT.ok;
  });
}

async function runDue(context: CommandContext): Promise<ExitCode> {
  return withBackend(context, 'checking', async (backend) => {
    const checks = await backend.checks.runDue();
    const { output } = context;
    if (output.json) output.jsonDocument(checks);
    else if (checks.length === 0) output.info('no monitor is due');
    else for (const check of checks) output.data(checkLine(check));
    return checks.some((check) => check.status === 'failed') ? EXIT.failure : EXIT.ok;
  });
}

export async function runChecks(context: CommandContext, idOrName: string): Promise<ExitCode> {
  return withBackend(context, 'reading', async (backend) => {
    const checks = await backend.checks.list(idOrName);
    const { output } = context;
    if (output.json) return (output.jsonDocument(checks), EXIT.ok);
    const rows = checks.map((c) => [
      c.id,
      c.status,
      c.trigger,
      c.startedAt ?? '',
      c.finishedAt && c.summary ? `${c.summary.changed}/${c.summary.new}/${c.summary.removed}/${c.summary.same}/${c.summary.error}` : '',
    ]);
    // A check that found something is the row a person looks for.
    const emphasize = checks.map((c) => Boolean(c.summary && c.summary.changed + c.summary.new + c.summary.removed > 0));
    if (rows.length > 0) output.data(await renderRows(output, ['id', 'status', 'trigger', 'started', 'changed/new/removed/same/error'], rows, { emphasize }));
    else output.info('no checks yet');
    return EXIT.ok;
  });
}

const PAGE_STATUSES = ['new', 'same', 'changed', 'removed', 'error'] as const;

/** A unified diff for a person: additions green, removals red, chunk headers cyan. */
function colouredDiff(output: Output, text: string): string {
  const style = output.style;
  return (
    text
      .split('\n')
      .filter((line) => !/^={3,}$/.test(line))
      // The lines are page content: escaped before our colours go around them.
      .map((line) => output.dataPiece(line))
      .map((line) =>
        line.startsWith('+++') || line.startsWith('---')
          ? style.bold(line)
          : line.startsWith('+')
            ? style.green(line)
            : line.startsWith('-')
              ? style.red(line)
              : line.startsWith('@@')
                ? style.cyan(line)
                : line,
      )
      .join('\n')
  );
}

const checkShowFlags = z.object({ status: z.enum(PAGE_STATUSES).optional() });

export async function runCheckShow(context: CommandContext, idOrName: string, checkId: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(checkShowFlags, rawFlags);
  return withBackend(context, 'reading', async (backend) => {
    const check = await backend.checks.get(idOrName, checkId, flags.status);
    const { output } = context;
    if (output.json) return (output.jsonDocument(check), EXIT.ok);
    output.info(checkLine(check));
    // meaningful: yes or no when the page was judged against the goal, empty when it was not.
    const meaningful = (page: (typeof check.pages)[number]) => (page.judgment ? (page.judgment.meaningful ? 'yes' : 'no') : '');
    // Screenshots kept of new and changed pages (a path on this machine, a URL of serve
    // otherwise): a last column, when the check kept any.
    const where = (location: string) => (location.startsWith('file:') ? fileURLToPath(location) : location);
    const shots = check.pages.some((page) => page.screenshot);
    const rows = check.pages.map((page) => [
      page.status,
      page.statusCode === null ? '' : String(page.statusCode),
      meaningful(page),
      page.url,
      page.error ?? '',
      ...(shots ? [page.screenshot ? where(page.screenshot) : ''] : []),
    ]);
    if (rows.length > 0)
      output.data(
        await renderRows(output, ['status', 'code', 'meaningful', 'url', 'error', ...(shots ? ['screenshot'] : [])], rows, {
          whole: { column: 4, key: 3, title: 'errors' },
        }),
      );
    if (check.deliveries && check.deliveries.length > 0) {
      output.info('\nnotifications:');
      const deliveries = check.deliveries.map((d) => [d.channel, d.event, d.status, String(d.attempts), d.target, d.lastError ?? '']);
      output.info(
        await renderRows(output, ['channel', 'event', 'state', 'attempts', 'to', 'last error'], deliveries, {
          stream: 'stderr',
          whole: { column: 5, key: 4, title: 'last errors' },
        }),
      );
    }
    reportDeliveryFailures(output, check);
    // Same pages whose text differed in volatile parts only: why they are the same.
    const noisy = check.pages.filter((page) => page.noise);
    if (noisy.length > 0) {
      output.info(`\n${plural(noisy.length, 'same page')} differed only in volatile parts:`);
      for (const page of noisy) output.info(`  ${output.dataPiece(page.url)}: ${output.dataPiece(page.noise!.reason)}`);
    }
    if (output.tty) {
      const diffs = check.pages
        .filter((page) => page.diff)
        .map((page) => {
          const judgment =
            page.judgment && `judgment: ${meaningful(page) === 'yes' ? 'meaningful' : 'not meaningful'} (${page.judgment.confidence}): ${page.judgment.reason}`;
          const judged = judgment ? `\n${output.style.dim(output.dataPiece(judgment))}` : '';
          return `\n${output.style.bold(output.dataPiece(page.url))}\n${colouredDiff(output, diffText(page.diff!))}${judged}`;
        });
      // The raw difference of those same pages, after the changes and dimmed: there to look at, not news.
      for (const page of noisy)
        diffs.push(
          `\n${output.style.bold(output.dataPiece(page.url))} ${output.style.dim('(same: volatile parts only)')}\n${page
            .noise!.diff.text.split('\n')
            .map((line) => output.style.dim(output.dataPiece(line)))
            .join('\n')}`,
        );
      // Diffs run long: a pager on a terminal, as git does.
      if (diffs.length > 0) await output.page(styled(diffs.join('\n')));
    }
    return EXIT.ok;
  });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = {
  'monitor apply': applyFlags,
  'monitor diff': diffFlags,
  'monitor create': createFlags,
  'monitor list': listFlags,
  'monitor export': exportFlags,
  'monitor delete': stateChangeFlags,
  'monitor run': runNowFlags,
  'monitor check': checkShowFlags,
};
