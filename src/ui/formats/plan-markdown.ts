/**
 * `monitor diff --format markdown` (and apply's): the plan as a pull-request comment. A summary
 * line, a table of what is created, updated and deleted, and per update each field's old and new
 * value, header values redacted as in every other output.
 */
import { reportedProblems, type ProblemReport } from './reported-problems.js';
import { redactChange } from '../redact.js';
import { markdownCode, markdownTable, markdownText, shortened } from './markdown.js';
import { plural } from '../../lib/plural.js';

/** A comment has a size limit (65,536 characters on GitHub): long values are cut, the JSON plan has them whole. */
const VALUE_MAX = 200;

/** What the comment shows of an entry of a plan (core's PlanEntry is one). */
export interface PlanEntry {
  action: 'create' | 'update' | 'unchanged' | 'delete';
  name: string;
  id: string | null;
  changes: readonly { path: string; from: unknown; to: unknown }[];
}

function heading(plan: readonly PlanEntry[], applied: boolean): string {
  const count = (action: PlanEntry['action']) => plan.filter((entry) => entry.action === action).length;
  const s = { created: count('create'), updated: count('update'), unchanged: count('unchanged'), deleted: count('delete') };
  const unchanged = `${s.unchanged} unchanged`;
  if (s.created + s.updated + s.deleted === 0) return `### webwatch ${applied ? 'apply' : 'plan'}: no changes (${unchanged})`;
  const counts = applied
    ? [`${s.created} created`, `${s.updated} updated`, `${s.deleted} deleted`]
    : [`${s.created} to create`, `${s.updated} to update`, `${s.deleted} to delete`];
  return `### webwatch ${applied ? 'apply' : 'plan'}: ${[...counts, unchanged].join(', ')}`;
}

const shownValue = (value: unknown) => (value === null ? '*none*' : markdownCode(shortened(JSON.stringify(value), VALUE_MAX)));

function changesOf(entry: PlanEntry): string {
  const rows = entry.changes.map(redactChange).map((change) => [markdownCode(change.path), shownValue(change.from), shownValue(change.to)]);
  return `#### ${markdownText(entry.name)}\n\n${markdownTable(['field', 'before', 'after'], rows)}`;
}

export function planMarkdown(plan: readonly PlanEntry[], options: { applied: boolean }): string {
  const changing = plan.filter((entry) => entry.action !== 'unchanged');
  const unchanged = plan.filter((entry) => entry.action === 'unchanged');
  const parts = [heading(plan, options.applied)];
  if (changing.length > 0) {
    const done = { create: 'created', update: 'updated', delete: 'deleted', unchanged: 'unchanged' } as const;
    const rows = changing.map((entry) => [
      options.applied ? done[entry.action] : entry.action,
      markdownText(entry.name),
      entry.id ? markdownCode(entry.id) : '',
      entry.action === 'update' ? plural(entry.changes.length, 'field') : '',
    ]);
    parts.push(markdownTable(['action', 'monitor', 'id', 'changes'], rows));
  }
  for (const entry of changing) if (entry.action === 'update') parts.push(changesOf(entry));
  if (unchanged.length > 0) {
    const names = unchanged.map((entry) => markdownText(entry.name)).join(', ');
    parts.push(`<details><summary>${plural(unchanged.length, 'monitor')} unchanged</summary>\n\n${names}\n\n</details>`);
  }
  return `${parts.join('\n\n')}\n`;
}

/** Invalid definition files as a comment: why there is no plan, each problem on its line. */
export function invalidDefinitionsMarkdown(report: ProblemReport, consequence: string): string {
  const problems = reportedProblems(report);
  const invalidFiles = new Set(problems.map((problem) => problem.file)).size;
  const rows = problems.map(({ file, error }) => [
    markdownCode(file),
    error.line === null ? '' : `${error.line}:${error.column}`,
    error.path === '' ? '' : markdownCode(error.path),
    markdownText(error.message),
  ]);
  return `${[
    '### webwatch: the monitor definitions are invalid',
    `${consequence}: ${plural(problems.length, 'error')} in ${invalidFiles} of ${plural(report.files.length, 'file')}.`,
    markdownTable(['file', 'line', 'field', 'problem'], rows),
  ].join('\n\n')}\n`;
}
