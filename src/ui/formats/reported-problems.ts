/** The problems of a validation report as one list; light, for commands that only render them. */
import type { ValidationError, ValidationReport } from '../../core/validate.js';

/** One problem of a report with what it belongs to: the file itself, or one of its monitors. */
export interface ReportedProblem {
  file: string;
  /** The monitor's name when the problem is one of a monitor (null when it has none). */
  monitor?: string | null;
  error: ValidationError;
}

/** Every problem of a report, in the order `validate` prints them: by file, then by monitor. */
export function reportedProblems(report: ValidationReport): ReportedProblem[] {
  return report.files.flatMap((file) => [
    ...file.errors.map((error) => ({ file: file.file, error })),
    ...file.monitors.flatMap((monitor) => monitor.errors.map((error) => ({ file: file.file, monitor: monitor.name, error }))),
  ]);
}
