/**
 * `monitor validate`: every definition of every file checked against the v2 interface, with
 * every problem located (file, line, column, field path) and reported at once.
 */
import { formatPath } from '../spec/issues.js';
import { normalizeMonitor, type NormalizedMonitor } from '../spec/monitor.js';
import { validateMonitorRequest } from '../spec/schemas.js';
import { nextRunTimes } from '../schedule/next-runs.js';
import { parseDefinitionFile, type LocatedProblem, type SourcePosition } from './definitions/parse.js';
import type { DefinitionSource } from './definitions/read.js';
import type { Env } from '../lib/env.js';

export interface ValidationError {
  path: string;
  line: number | null;
  column: number | null;
  message: string;
}

export interface MonitorReport {
  name: string | null;
  valid: boolean;
  errors: ValidationError[];
  position: SourcePosition;
  namePosition: SourcePosition;
  /** The normalised definition, when valid. */
  definition?: NormalizedMonitor;
}

export interface FileReport {
  file: string;
  monitors: MonitorReport[];
  /** Problems of the file itself: unreadable, YAML syntax, not a monitor or list. */
  errors: ValidationError[];
}

export interface ValidationReport {
  valid: boolean;
  files: FileReport[];
}

export interface ValidateContext {
  env: Env;
}

const toError = (problem: LocatedProblem): ValidationError => ({
  path: formatPath(problem.path),
  line: problem.line,
  column: problem.column,
  message: problem.message,
});

const byPosition = (a: ValidationError, b: ValidationError) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);

function validateFile(source: DefinitionSource, context: ValidateContext): FileReport {
  if (source.text === undefined) {
    const problem = source.error ?? { message: 'cannot read', line: null, column: null };
    return { file: source.file, monitors: [], errors: [{ path: '', ...problem }] };
  }
  const parsed = parseDefinitionFile(source.text, context.env);
  const monitors = parsed.monitors.map((candidate): MonitorReport => {
    const value = candidate.value as Record<string, unknown> | null;
    const name = value && typeof value === 'object' && typeof value.name === 'string' ? value.name : null;
    const problems = [...candidate.problems];
    // Interpolation problems already name their field; schema errors there would only repeat them.
    const interpolated = new Set(problems.map((p) => formatPath(p.path)));
    const result = validateMonitorRequest(candidate.value, 'file');
    if (!result.ok) {
      for (const problem of result.problems) {
        if (interpolated.has(formatPath(problem.path))) continue;
        const atKey = problem.message.startsWith('unknown field');
        problems.push({ ...problem, ...candidate.locate(problem.path, atKey) });
      }
    }
    const errors = problems.map(toError).sort(byPosition);
    return {
      name,
      valid: errors.length === 0,
      errors,
      position: candidate.position,
      namePosition: candidate.locate(['name'], false),
      ...(result.ok && errors.length === 0 && { definition: normalizeMonitor(result.value) }),
    };
  });
  if (parsed.monitors.length === 0 && parsed.problems.length === 0) {
    parsed.problems.push({ path: [], line: null, column: null, message: 'the file defines no monitors' });
  }
  return { file: source.file, monitors, errors: parsed.problems.map(toError).sort(byPosition) };
}

/** Names must be unique across all files of one run: a later definition is the error. */
function flagDuplicateNames(files: FileReport[]) {
  const seen = new Map<string, string>();
  for (const file of files) {
    for (const monitor of file.monitors) {
      if (monitor.name === null) continue;
      const first = seen.get(monitor.name);
      if (first === undefined) {
        seen.set(monitor.name, `${file.file}:${monitor.namePosition.line}`);
        continue;
      }
      monitor.valid = false;
      delete monitor.definition;
      monitor.errors.push({
        path: 'name',
        line: monitor.namePosition.line,
        column: monitor.namePosition.column,
        message: `duplicate monitor name "${monitor.name}": already defined at ${first}`,
      });
    }
  }
}

export function validateSources(sources: readonly DefinitionSource[], context: ValidateContext): ValidationReport {
  const files = sources.map((source) => validateFile(source, context));
  flagDuplicateNames(files);
  const valid = files.every((file) => file.errors.length === 0 && file.monitors.every((monitor) => monitor.valid));
  return { valid, files };
}

/** The next `count` run times of a valid definition, as ISO-8601 strings. */
export function nextRuns(definition: NormalizedMonitor, count: number, from: Date): string[] {
  return nextRunTimes(definition.schedule.cron, definition.schedule.timezone, count, from).map((date) => date.toISOString());
}
