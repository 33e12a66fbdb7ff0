/** The problems of a validation report as one list; light, for commands that only render them. */

/** A located problem as the formats show it (a validation error is one). */
export interface ReportedError {
  /** The field's path, formatted; '' for the file or the monitor itself. */
  path: string;
  line: number | null;
  column: number | null;
  message: string;
}

/**
 * What the formats read of a validation report (core's ValidationReport is one): each file's own
 * problems and those of each of its monitors.
 */
export interface ProblemReport {
  files: readonly {
    file: string;
    errors: readonly ReportedError[];
    monitors: readonly { name: string | null; errors: readonly ReportedError[] }[];
  }[];
}

/** One problem of a report with what it belongs to: the file itself, or one of its monitors. */
export interface ReportedProblem {
  file: string;
  /** The monitor's name when the problem is one of a monitor (null when it has none). */
  monitor?: string | null;
  error: ReportedError;
}

/** Every problem of a report, in the order `validate` prints them: by file, then by monitor. */
export function reportedProblems(report: ProblemReport): ReportedProblem[] {
  return report.files.flatMap((file) => [
    ...file.errors.map((error) => ({ file: file.file, error })),
    ...file.monitors.flatMap((monitor) => monitor.errors.map((error) => ({ file: file.file, monitor: monitor.name, error }))),
  ]);
}
