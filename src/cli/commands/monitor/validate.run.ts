/** `monitor validate`: flags -> core validation -> human lines or the JSON report. */
import { stringify } from 'yaml';
import { z } from 'zod';
import { formatLocated } from '../../../spec/located-line.js';
import { readDefinitionSources } from '../../../core/definitions/read.js';
import { nextRuns, validateSources, type MonitorReport, type ValidationError, type ValidationReport } from '../../../core/validate.js';
import { EXIT, type ExitCode } from '../../../errors/exit-codes.js';
import { UsageError } from '../../../errors/webwatch-error.js';
import { formatInZone } from '../../../schedule/next-runs.js';
import { validationSarif } from '../../../ui/formats/sarif.js';
import { validationAnnotations } from '../../../ui/formats/validation-annotations.js';
import type { Output } from '../../../ui/output.js';
import { redactDefinition } from '../../../ui/redact.js';
import { escapeControls, styled } from '../../../ui/terminal-text.js';
import type { CommandContext } from '../../context.js';
import { parseFlags } from '../../flags.js';
import { problemFormat, reportRoot, type ProblemFormat } from '../../problem-format.js';
import { version } from '../../version.js';

const flagsSchema = z.object({
  /** -f files: validate.ts has joined them with the arguments into paths. */
  file: z.array(z.string()).optional(),
  print: z.boolean().default(false),
  format: z.enum(['text', 'github', 'sarif']).optional(),
});

const NEXT_RUN_COUNT = 3;

export async function runValidate(context: CommandContext, paths: string[], rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(flagsSchema, rawFlags);
  const { io, output } = context;
  const format = problemFormat(flags.format, io.env, output.json);
  if (format === 'sarif' && flags.print) throw new UsageError('--print and --format sarif both write to stdout: give one');
  const sources = await readDefinitionSources(paths, (maxBytes) => io.readStdinBytes(maxBytes));
  const report = validateSources(sources, { env: io.env });
  const now = io.now();

  if (output.json) output.jsonDocument(jsonReport(report, flags.print, now));
  else if (format === 'sarif') {
    output.jsonDocument(validationSarif(report, { version: version(), root: reportRoot(io), cwd: io.cwd() }));
    renderSummary(report, output);
  } else renderHuman(report, context, flags.print, now, format);
  return report.valid ? EXIT.ok : EXIT.usage;
}

function jsonReport(report: ValidationReport, print: boolean, now: Date) {
  const error = (e: ValidationError) => ({ path: e.path, line: e.line, column: e.column, message: e.message });
  return {
    valid: report.valid,
    files: report.files.map((file) => ({
      file: file.file,
      monitors: file.monitors.map((monitor) => ({
        name: monitor.name,
        valid: monitor.valid,
        errors: monitor.errors.map(error),
        ...(print &&
          monitor.definition && {
            definition: redactDefinition(monitor.definition),
            nextRuns: nextRuns(monitor.definition, NEXT_RUN_COUNT, now),
          }),
      })),
      errors: file.errors.map(error),
    })),
  };
}

function renderHuman(report: ValidationReport, context: CommandContext, print: boolean, now: Date, format: Exclude<ProblemFormat, 'sarif'>) {
  const { io, output } = context;
  // With --print, stdout carries the YAML, so problems move to stderr. Either way they are
  // messages about the input, not data: escaped even when piped, since CI logs render escapes.
  const problemLine = (text: string) => (print ? output.problem(styled(text)) : output.data(styled(text)));
  const style = print ? output.errorStyle : output.style;
  const line = (file: string, error: ValidationError) =>
    problemLine(formatLocated(file, error, { outside: escapeControls, where: style.bold, path: style.yellow }));
  if (format === 'github') {
    for (const annotation of validationAnnotations(report, reportRoot(io), io.cwd())) problemLine(annotation);
  } else {
    for (const file of report.files) {
      for (const error of file.errors) line(file.file, error);
      for (const monitor of file.monitors) for (const error of monitor.errors) line(file.file, error);
    }
  }
  if (print) {
    const printed = report.files.flatMap((file) => file.monitors.filter((m) => m.definition).map((m) => printedDefinition(file.file, m, now)));
    if (printed.length > 0) output.data(printed.join('---\n'));
  }
  renderSummary(report, output);
}

/** One line on stderr: how many monitors are valid, or how many errors in how many files. */
function renderSummary(report: ValidationReport, output: Output) {
  let monitorCount = 0;
  let errorCount = 0;
  const invalidFiles = new Set<string>();
  for (const file of report.files) {
    monitorCount += file.monitors.length;
    const errors = file.errors.length + file.monitors.reduce((sum, m) => sum + m.errors.length, 0);
    if (errors > 0) invalidFiles.add(file.file);
    errorCount += errors;
  }
  const files = report.files.length;
  const s = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const summary = output.messageStyle;
  if (report.valid) {
    output.info(summary.green(`✓ ${s(monitorCount, 'monitor')} in ${s(files, 'file')} valid`));
  } else {
    output.info(summary.red(`✗ ${s(errorCount, 'error')} in ${invalidFiles.size} of ${s(files, 'file')}`));
  }
}

function printedDefinition(file: string, monitor: MonitorReport, now: Date): string {
  const definition = monitor.definition!;
  const runs = nextRuns(definition, NEXT_RUN_COUNT, now).map((iso) => formatInZone(new Date(iso), definition.schedule.timezone));
  const header = `# ${file}:${monitor.position.line}\n# next runs: ${runs.join(', ')}\n`;
  return header + stringify(redactDefinition(definition), { lineWidth: 0 });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { 'monitor validate': flagsSchema };
