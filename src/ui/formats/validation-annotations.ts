/** `monitor validate --format github`: each problem as an annotation on its file, line and column. */
import { formatLocated } from '../../spec/located-line.js';
import { reportedProblems, type ProblemReport } from './reported-problems.js';
import { filePlace } from './file-place.js';
import { workflowCommand } from './workflow-commands.js';

/**
 * One `::error` line per problem. Files are named relative to `root` (the checkout), as the
 * pull request names them; a problem of standard input has no file, so its line says where.
 */
export function validationAnnotations(report: ProblemReport, root: string, cwd: string): string[] {
  return reportedProblems(report).map(({ file, error }) => {
    const place = filePlace(file, root, cwd);
    if (!place) return workflowCommand('error', {}, formatLocated(file, error));
    const message = error.path === '' ? error.message : `${error.path}: ${error.message}`;
    return workflowCommand('error', { file: place.path, line: error.line, column: error.column }, message);
  });
}
