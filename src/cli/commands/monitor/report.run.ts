/** `monitor report` (a check as one HTML file) and `monitor history` (recent checks, or one JSON field, over time). */
import { spawn } from 'node:child_process';
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { checkHistory, changesOf, fieldHistory, reportedCheck } from '../../../core/history.js';
import { EXIT, type ExitCode } from '../../../errors/exit-codes.js';
import { UsageError } from '../../../errors/webwatch-error.js';
import { plural } from '../../../lib/plural.js';
import { bar, sparkline } from '../../../ui/sparkline.js';
import { renderRows } from '../../../ui/table.js';
import { styledLine } from '../../../ui/terminal-text.js';
import { withBackend } from '../../backend.js';
import type { CommandContext } from '../../context.js';
import { parseFlags } from '../../flags.js';

const reportFlags = z.object({ output: z.string().min(1).optional(), open: z.boolean().default(false) });

/** A file name from a monitor's name: letters, digits and dashes. */
const slug = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'monitor';

/**
 * Opens a file with the person's browser: $BROWSER when set (as git and Python read it), else
 * the system's opener. Not waited for; a failure to start it is a warning, the report is written.
 */
function openWith(context: CommandContext, path: string): Promise<void> {
  const { env } = context.io;
  const [command, ...args] = env.BROWSER
    ? [env.BROWSER]
    : process.platform === 'darwin'
      ? ['open']
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""']
        : ['xdg-open'];
  return new Promise((done) => {
    const child = spawn(command!, [...args, path], { detached: true, stdio: 'ignore', env: { ...process.env, ...env } });
    child.once('error', (error) => {
      context.output.problem(
        styledLine`${context.output.messageStyle.yellow('warning:')} could not open the report with ${command!}: ${error.message}; it is at ${path}`,
      );
      done();
    });
    child.once('spawn', () => {
      child.unref();
      done();
    });
  });
}

export async function runReport(context: CommandContext, idOrName: string, checkRef: string | undefined, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(reportFlags, rawFlags);
  const { output, io } = context;
  if (flags.output === '-' && output.json) throw new UsageError('give -o - (the report on stdout) or --json (where it was written), not both');
  // A file that cannot be written is said before the report is made.
  const target = flags.output && flags.output !== '-' ? resolve(io.cwd(), flags.output) : undefined;
  if (
    target &&
    !(await stat(dirname(target)).then(
      (found) => found.isDirectory(),
      () => false,
    ))
  ) {
    throw new UsageError(`-o ${flags.output}: the directory ${dirname(target)} does not exist`);
  }
  return withBackend(context, 'reading', async (backend) => {
    let ref = checkRef;
    if (!ref) {
      const chosen = await reportedCheck(backend, idOrName);
      if (chosen.fallback) output.info(`no check of ${idOrName} found changes: the report shows the latest check`);
      ref = chosen.id;
    }
    const { check, html } = await backend.checks.report(idOrName, ref);
    if (flags.output === '-') {
      for (const piece of html) io.stdout.write(piece);
      return EXIT.ok;
    }
    const monitor = await backend.monitors.get(idOrName);
    const path = target ?? resolve(io.cwd(), `webwatch-report-${slug(monitor.name)}-${check.id.slice(0, 8)}.html`);
    // Written whole or not at all: a reader never opens half a report.
    const partial = `${path}.${process.pid}.partial`;
    try {
      await writeFile(partial, html);
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw new UsageError(`cannot write the report to ${path}: ${(error as Error).message}`);
    }
    const bytes = html.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
    if (output.json) output.jsonDocument({ file: path, monitor: monitor.name, checkId: check.id, status: check.status, summary: check.summary, bytes });
    else {
      output.data(path);
      const s = check.summary;
      output.info(
        `report of check ${check.id}: ${s.changed} changed, ${s.new} new, ${s.removed} removed, ${plural(s.error, 'error')} (${(bytes / 1024).toFixed(0)} KiB)`,
      );
    }
    if (flags.open) await openWith(context, path);
    return EXIT.ok;
  });
}

const historyFlags = z.object({
  field: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(30),
});

const shown = (value: unknown) => (value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** A field's value as a number for the chart: numbers, and strings that are one ("$12.50", "1,299"). */
function numeric(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  const match = /-?\d[\d,]*(?:\.\d+)?/.exec(value);
  return match ? Number(match[0].replace(/,/g, '')) : null;
}

export async function runHistory(context: CommandContext, idOrName: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(historyFlags, rawFlags);
  const { output } = context;
  return withBackend(context, 'reading', async (backend) => {
    if (flags.field) {
      const points = await fieldHistory(backend, idOrName, flags.field, flags.limit);
      if (output.json) return (output.jsonDocument({ field: flags.field, points }), EXIT.ok);
      if (points.length === 0) return (output.info('no checks yet'), EXIT.ok);
      const urls = [...new Set(points.map((point) => point.url))];
      for (const url of urls) {
        const values = points.filter((point) => point.url === url).map((point) => numeric(point.value));
        if (values.some((value) => value !== null)) output.info(`${flags.field}${urls.length > 1 ? ` of ${url}` : ''}, oldest to newest: ${sparkline(values)}`);
      }
      const numbers = points.map((point) => numeric(point.value)).filter((value): value is number => value !== null);
      const low = Math.min(...numbers);
      const high = Math.max(...numbers);
      // Newest first, as `monitor checks` lists them.
      const rows = [...points].reverse().map((point) => {
        const value = numeric(point.value);
        // From the lowest value seen (one cell) to the highest (twenty): the movement shows, not the zero.
        const cells = value === null ? 0 : high === low ? 10 : 1 + ((value - low) / (high - low)) * 19;
        const drawn = output.tty ? [bar(cells, 20, 20)] : [];
        return [point.checkId, point.startedAt ?? '', ...(urls.length > 1 ? [point.url] : []), shown(point.value), ...drawn];
      });
      output.data(await renderRows(output, ['check', 'started', ...(urls.length > 1 ? ['url'] : []), flags.field, ...(output.tty ? [''] : [])], rows));
      return EXIT.ok;
    }
    const checks = await checkHistory(backend, idOrName, flags.limit);
    if (output.json) return (output.jsonDocument(checks), EXIT.ok);
    if (checks.length === 0) return (output.info('no checks yet'), EXIT.ok);
    const most = Math.max(...checks.map(changesOf));
    output.info(`changes in the last ${plural(checks.length, 'check')}, oldest to newest: ${sparkline([...checks].reverse().map(changesOf), 0)}`);
    const rows = checks.map((check) => {
      const s = check.summary;
      return [
        check.id,
        check.startedAt ?? '',
        check.status,
        String(s.changed),
        String(s.new),
        String(s.removed),
        String(s.error),
        String(s.totalPages),
        ...(output.tty ? [bar(changesOf(check), most, 20)] : []),
      ];
    });
    const emphasize = checks.map((check) => changesOf(check) > 0);
    output.data(
      await renderRows(output, ['check', 'started', 'status', 'changed', 'new', 'removed', 'errors', 'pages', ...(output.tty ? ['changes'] : [])], rows, {
        emphasize,
      }),
    );
    return EXIT.ok;
  });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { 'monitor report': reportFlags, 'monitor history': historyFlags };
