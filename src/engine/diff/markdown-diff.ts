/**
 * Page differences: a unified diff (`previous.md` / `current.md`, 3 lines of context) and the
 * same as structured JSON (files, chunks, changes with line numbers). Comparison for the
 * same/changed decision ignores whitespace differences.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

/** The diff library loads only when there is something to diff: most checks and scrapes have not. */
let diffLibrary: typeof import('diff') | undefined;
const diffModule = () => (diffLibrary ??= createRequire(import.meta.url)('diff') as typeof import('diff'));

export type { DiffChange, DiffChunk, PageDiff, StructuredDiff } from '../../contract/diff.js';
import type { DiffChange, DiffChunk, PageDiff } from '../../contract/diff.js';

const PREVIOUS = 'previous.md';
const CURRENT = 'current.md';

/** Whitespace-insensitive: runs of whitespace count as one space, ends are trimmed. */
export function normalizeForComparison(markdown: string): string {
  // The same as replace(/\s+/g, ' '), touching only runs that are not already one space: most
  // of a page's whitespace is single spaces, and replacing each was a tenth of a first check.
  return markdown.replace(/ \s+|[^\S ]\s*/g, ' ').trim();
}

export function sameContent(previous: string, current: string): boolean {
  return normalizeForComparison(previous) === normalizeForComparison(current);
}

/** A hash of the markdown as compared: equal hashes mean the same content, whitespace aside. */
export function contentHash(markdown: string): string {
  return createHash('sha256').update(normalizeForComparison(markdown)).digest('base64url');
}

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/**
 * The diff library starts a patch with a line of `=` (as `svn diff` does); a unified diff, as
 * git and the terminal show it, starts at `--- previous.md`. Diffs stored before are read the same way.
 */
export const withoutRule = (text: string) => text.replace(/^={3,}\n/, '');

export function diffMarkdown(previous: string, current: string): PageDiff {
  const before = withNewline(previous);
  const after = withNewline(current);
  // One diff for both forms: the text is the structured patch, formatted (as createTwoFilesPatch does).
  const patch = diffModule().structuredPatch(PREVIOUS, CURRENT, before, after, undefined, undefined, { context: 3 });
  const text = withoutRule(diffModule().formatPatch(patch));
  let additions = 0;
  let deletions = 0;
  const chunks = patch.hunks.map((hunk): DiffChunk => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    const changes = hunk.lines
      .filter((line) => !line.startsWith('\\'))
      .map((line): DiffChange => {
        const content = line.slice(1);
        if (line.startsWith('+')) {
          additions++;
          return { type: 'add', content, ln: newLine++ };
        }
        if (line.startsWith('-')) {
          deletions++;
          return { type: 'del', content, ln: oldLine++ };
        }
        return { type: 'normal', content, ln1: oldLine++, ln2: newLine++ };
      });
    return {
      content: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      oldStart: hunk.oldStart,
      oldLines: hunk.oldLines,
      newStart: hunk.newStart,
      newLines: hunk.newLines,
      changes,
    };
  });
  return { text, json: { files: [{ from: PREVIOUS, to: CURRENT, additions, deletions, chunks }] } };
}
