/**
 * GitHub Actions workflow commands (`::error file=...,line=...,col=...::message`): the runner
 * turns each line into an annotation on that line of the pull request's diff.
 */
import { escapeControls } from '../terminal-text.js';

/** A message: `%`, carriage return and newline are escaped as GitHub's runner requires. */
export function escapeCommandData(text: string): string {
  // The runner reads a command up to the end of its line: an unescaped newline in a message
  // would end it there and let the rest of the text act as a command of its own.
  return escapeControls(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

/** A property value: as a message, and `:` and `,` too, which separate properties. */
export function escapeCommandProperty(text: string): string {
  return escapeCommandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export interface AnnotationPlace {
  file?: string;
  line?: number | null;
  column?: number | null;
  title?: string;
}

/** One `::error` (or `::warning`, `::notice`) line. */
export function workflowCommand(kind: 'error' | 'warning' | 'notice', place: AnnotationPlace, message: string): string {
  const properties: string[] = [];
  if (place.file !== undefined) properties.push(`file=${escapeCommandProperty(place.file)}`);
  if (place.file !== undefined && place.line != null) properties.push(`line=${place.line}`);
  if (place.file !== undefined && place.line != null && place.column != null) properties.push(`col=${place.column}`);
  if (place.title !== undefined) properties.push(`title=${escapeCommandProperty(place.title)}`);
  return `::${kind}${properties.length > 0 ? ` ${properties.join(',')}` : ''}::${escapeCommandData(message)}`;
}
