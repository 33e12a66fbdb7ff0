/**
 * Differences as every side sees them: a page's markdown diff (unified text, and the same as
 * structured JSON) and the field-by-field diff of extracted JSON. Types only: the engine's
 * differs write them, scrapes and checks carry them, backends and commands read them here.
 */

export interface DiffChange {
  type: 'add' | 'del' | 'normal';
  content: string;
  /** Line in current.md (add), previous.md (del); both for context lines. */
  ln?: number;
  ln1?: number;
  ln2?: number;
}

export interface DiffChunk {
  content: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  changes: DiffChange[];
}

export interface StructuredDiff {
  files: { from: string; to: string; additions: number; deletions: number; chunks: DiffChunk[] }[];
}

export interface PageDiff {
  text: string;
  json: StructuredDiff;
}

/** Each leaf path of extracted JSON that changed, `{previous, current}` (the hosted SDK's MonitorJsonFieldDiff). */
export type JsonFieldDiff = Record<string, { previous: unknown; current: unknown }>;

/** A change-tracking scrape's json mode: each top-level field that changed, `{old, new}` (the hosted API's answer). */
export type TrackedFieldDiff = Record<string, { old: unknown; new: unknown }>;
