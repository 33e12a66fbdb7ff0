/** The MCP tools of monitors: validate and apply definitions, list monitors, run a check, read its pages and diffs, and their history. */
import { z } from 'zod';
import type { CheckRecord } from '../../contract/checks.js';
import { executePlan, makePlan } from '../../core/apply/apply.js';
import { planSummary } from '../../core/apply/plan.js';
import { changesOf, checkHistory, fieldHistory } from '../../core/history.js';
import { validateUntrusted } from '../../core/untrusted-validation.js';
import type { ValidationReport } from '../../core/validate.js';
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { plural } from '../../lib/plural.js';
import type { Backend } from '../../services/interfaces.js';
import { newestCheck } from '../../services/monitor-ref.js';
import { maskHeaderValues } from '../../spec/header-masks.js';
import { json, textResult } from '../results.js';
import { guarded, progressOf, type ToolKit } from '../tool-kit.js';

/**
 * `${VAR}` in a definition a model writes is not read from the server's environment: a page that
 * tells the model to put `${WEBWATCH_API_KEY}` in a webhook URL must get an error, not the key.
 */
const NO_ENVIRONMENT = { env: {} };

/**
 * A definition a model sends: at most 5 million characters (the HTTP transport's body is 4 MiB
 * at most), validated on a worker thread (untrusted-validation.ts) so that no document holds up
 * the other sessions.
 */
const DEFINITION_YAML = z.string().min(1).max(5_000_000);

/** How often a running check tells its client that it still runs. */
const CHECK_BEAT_MS = 5000;

/** Changed fields of extracted JSON (`{path: {previous, current}}`), not a markdown diff's chunks (`{files}`). */
const isFieldDiff = (diff: unknown): boolean =>
  diff !== null &&
  typeof diff === 'object' &&
  Object.keys(diff).length > 0 &&
  Object.values(diff).every((field) => field !== null && typeof field === 'object' && 'previous' in field && 'current' in field);

function validationText(report: ValidationReport): string {
  const lines: string[] = [];
  for (const file of report.files) {
    for (const problem of file.errors) lines.push(`${problem.line ?? '?'}:${problem.column ?? '?'}: ${problem.message}`);
    for (const monitor of file.monitors) {
      lines.push(`${monitor.valid ? 'valid' : 'invalid'}: ${monitor.name ?? '(no name)'}`);
      for (const problem of monitor.errors) lines.push(`  ${problem.line ?? '?'}:${problem.column ?? '?'} ${problem.path}: ${problem.message}`);
    }
  }
  return `${report.valid ? 'The definition is valid.' : 'The definition is invalid; nothing was changed.'}\n${lines.join('\n')}`;
}

/** The check asked for, or the latest one (by start) when none is named or "latest". */
async function checkOf(backend: Backend, monitor: string, check: string | undefined): Promise<string> {
  if (check && check !== 'latest') return check;
  const checks = await backend.checks.list(monitor);
  const latest = newestCheck(checks);
  if (!latest)
    throw new WebwatchError(`monitor "${monitor}" has no check yet`, {
      exitCode: EXIT.notFound,
      code: 'NOT_FOUND',
      suggestion: 'run one with webwatch_monitor_run',
    });
  return latest.id;
}

const summaryLine = (check: CheckRecord) => {
  const s = check.summary;
  return `check ${check.id} ${check.status}: ${s.changed} changed, ${s.new} new, ${s.removed} removed, ${s.same} same, ${plural(s.error, 'error')} (${plural(s.totalPages, 'page')})`;
};

/** The monitor tools, over the backend's monitors and checks. */
export function registerMonitorTools(kit: ToolKit): void {
  const { server, backend, pages } = kit;
  server.registerTool(
    'webwatch_monitor_validate',
    {
      title: 'Validate a monitor definition',
      description:
        'Check a monitor definition (YAML, as in a webwatch monitors file: one monitor, a list, or several documents) against every rule of the v2 interface, without changing anything. Says each problem with its line, column and field.',
      inputSchema: z.object({ yaml: DEFINITION_YAML }).strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ yaml }) => textResult(pages.page(validationText(await validateUntrusted([{ file: 'definition.yaml', text: yaml }], NO_ENVIRONMENT))))),
  );

  server.registerTool(
    'webwatch_monitor_apply',
    {
      title: 'Create or update monitors from a definition',
      description:
        'Make the monitors match a YAML definition, by name, like kubectl apply: creates the new ones and updates the changed ones (dryRun: true only says what would change; prune: true also deletes monitors the definition does not name). Nothing is changed when the definition is invalid.',
      inputSchema: z.object({ yaml: DEFINITION_YAML, dryRun: z.boolean().optional(), prune: z.boolean().optional() }).strict(),
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(async ({ yaml, dryRun, prune }) => {
      const report = await validateUntrusted([{ file: 'definition.yaml', text: yaml }], NO_ENVIRONMENT);
      if (!report.valid) return { isError: true, content: [{ type: 'text', text: validationText(report) }] };
      const definitions = report.files.flatMap((file) => file.monitors.map((monitor) => monitor.definition!));
      const plan = await makePlan(backend, definitions, prune ?? false);
      const done = dryRun ? plan : await executePlan(backend, plan);
      const lines = done.map(
        (entry) =>
          `${entry.action} ${entry.name}${entry.id ? ` (${entry.id})` : ''}${entry.changes.length > 0 ? `: ${entry.changes.map((change) => change.path).join(', ')}` : ''}`,
      );
      return textResult(`${dryRun ? 'Plan (nothing changed)' : 'Applied'}: ${json(planSummary(done))}\n${lines.join('\n')}`);
    }),
  );

  server.registerTool(
    'webwatch_monitor_list',
    {
      title: 'List monitors',
      description: 'The monitors, with their status, schedule, targets and the summary of their last check.',
      inputSchema: z.object({}).strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async () => {
      // Header values (cookies, tokens) are secrets: a model reads them masked, as serve answers them.
      const monitors = (await backend.monitors.list()).map(maskHeaderValues);
      return textResult(
        pages.page(
          json(
            monitors.map(({ id, name, status, schedule, targets, lastRunAt, nextRunAt, lastCheckSummary }) => ({
              id,
              name,
              status,
              schedule,
              targets,
              lastRunAt,
              nextRunAt,
              lastCheckSummary,
            })),
          ),
        ),
      );
    }),
  );

  server.registerTool(
    'webwatch_monitor_run',
    {
      title: "Run a monitor's check now",
      description:
        'Run a check of a monitor (by id or name) now and wait for it: each page is new, changed, same, removed or an error. Then read the changed pages and their diffs with webwatch_monitor_check.',
      inputSchema: z.object({ monitor: z.string().min(1) }).strict(),
      annotations: { openWorldHint: true },
    },
    guarded(async ({ monitor }, extra) => {
      const progress = progressOf(extra);
      await progress(0, undefined, `checking ${monitor}`);
      // A check says nothing until it ends: a beat every few seconds keeps a client that resets its
      // timeout on progress waiting.
      const started = Date.now();
      let beats = 0;
      const beat = setInterval(() => void progress(++beats, undefined, `checking ${monitor}: ${Math.round((Date.now() - started) / 1000)} s`), CHECK_BEAT_MS);
      let check: CheckRecord;
      try {
        check = await backend.checks.run(monitor, { wait: true });
      } finally {
        clearInterval(beat);
      }
      await progress(beats + 1, beats + 1, summaryLine(check));
      await progress.flushed();
      return textResult(
        `${summaryLine(check)}\nRead its pages with webwatch_monitor_check {"monitor": ${JSON.stringify(monitor)}, "check": "${check.id}", "status": "changed"}`,
      );
    }),
  );

  server.registerTool(
    'webwatch_monitor_check',
    {
      title: "A check's pages and diffs",
      description:
        'The pages of one check of a monitor (check: its id, or "latest", the default), with the diff of each changed page and the judge\'s verdict; status keeps pages of one status (changed, new, removed, same, error).',
      inputSchema: z
        .object({ monitor: z.string().min(1), check: z.string().min(1).optional(), status: z.enum(['new', 'changed', 'same', 'removed', 'error']).optional() })
        .strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ monitor, check, status }) => {
      const record = await backend.checks.get(monitor, await checkOf(backend, monitor, check), status);
      const body = record.pages
        .map((page) =>
          [
            `## ${page.status} ${page.url}${page.statusCode ? ` (HTTP ${page.statusCode})` : ''}`,
            page.judgment ? `judgment: ${json(page.judgment)}` : '',
            page.error ? `error: ${page.error}` : '',
            page.noise ? `why same: ${page.noise.reason}` : '',
            page.diff && 'text' in page.diff && page.diff.text ? `\`\`\`diff\n${page.diff.text}\n\`\`\`` : '',
            // The extracted JSON's changed fields; a markdown diff's `json` is its text parsed into chunks, said once above.
            page.diff && isFieldDiff(page.diff.json) ? `changed fields: ${json(page.diff.json)}` : '',
          ]
            .filter(Boolean)
            .join('\n'),
        )
        .join('\n\n');
      return textResult(pages.page(`${summaryLine(record)}\n\n${body}`.trimEnd()));
    }),
  );

  server.registerTool(
    'webwatch_monitor_history',
    {
      title: "A monitor's recent checks, or one extracted field over time",
      description:
        'The recent finished checks of a monitor, newest first, with their counts of changed, new, removed and failed pages; with field (a path such as price or plans[0].price), that field of the JSON the monitor extracts at each check, oldest first.',
      inputSchema: z.object({ monitor: z.string().min(1), field: z.string().min(1).optional(), limit: z.number().int().min(1).max(1000).optional() }).strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ monitor, field, limit }) => {
      if (field) {
        const points = await fieldHistory(backend, monitor, field, limit);
        return textResult(
          pages.page(
            points.map((point) => `${point.startedAt ?? ''}  check ${point.checkId}  ${point.url}  ${field} = ${json(point.value)}`).join('\n') ||
              'no checks yet',
          ),
        );
      }
      const checks = await checkHistory(backend, monitor, limit);
      return textResult(
        pages.page(
          checks.map((check) => `${check.startedAt ?? ''}  ${summaryLine(check)}${changesOf(check) > 0 ? '' : ' (nothing new)'}`).join('\n') || 'no checks yet',
        ),
      );
    }),
  );
}
