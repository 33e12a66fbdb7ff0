/** Reads definition files: named files, directories (their .yaml/.yml files, recursively) and stdin. */
import { constants, type Stats } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { DEFINITION_FILE_MAX_BYTES } from '../../spec/limits.js';
import { decodeUtf8 } from '../../lib/utf8.js';
import { compareFileNames } from '../../lib/compare-text.js';
import { STDIN_NAME } from '../../spec/located-line.js';

/** Why a source could not be read; line and column when the problem has a place in it. */
export interface SourceProblem {
  message: string;
  line: number | null;
  column: number | null;
}

export interface DefinitionSource {
  file: string;
  text?: string;
  error?: SourceProblem;
}

const unreadable = (file: string, message: string): DefinitionSource => ({ file, error: { message, line: null, column: null } });

const MIB = 1024 * 1024;
const LIMIT_TEXT = `the ${DEFINITION_FILE_MAX_BYTES / MIB} MiB limit of a definition file`;
/** Rounded up, so that a file just over the limit never reads as the limit itself. */
const mebibytes = (bytes: number) => `${(Math.ceil((bytes / MIB) * 10) / 10).toFixed(1)} MiB`;
const tooLarge = (file: string, bytes: number) => unreadable(file, `the file is ${mebibytes(bytes)}, over ${LIMIT_TEXT}`);

/** The source for `bytes`: its text, or the place of its first invalid UTF-8 byte. */
function decoded(file: string, bytes: Uint8Array): DefinitionSource {
  const result = decodeUtf8(bytes);
  if (result.ok) return { file, text: result.text };
  return { file, error: { message: result.message, line: result.line, column: result.column } };
}

const DEFINITION_EXTENSIONS = new Set(['.yaml', '.yml']);

async function definitionFilesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => compareFileNames(a.name, b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await definitionFilesIn(path)));
    // Whatever its type: readDefinitionFile refuses what is not a regular file, and says so.
    else if (DEFINITION_EXTENSIONS.has(extname(entry.name).toLowerCase())) files.push(path);
  }
  return files;
}

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return (error as Error).message;
}

function specialFileKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'of an unknown type';
}

function notRegularFile(stats: Stats): string {
  if (stats.isDirectory()) return 'cannot read: is a directory';
  return `not a regular file (${specialFileKind(stats)})`;
}

/** One named file, with every check of a definition file: type, size, UTF-8. */
export async function readDefinitionFile(file: string): Promise<DefinitionSource> {
  try {
    // Opening a FIFO waits for a writer, for ever if there is none, and opening a device can act
    // on it: look at the path first and open only regular files.
    const found = await stat(file);
    if (!found.isFile()) return unreadable(file, notRegularFile(found));
    // Checked before reading: a file of gigabytes costs nothing to refuse.
    if (found.size > DEFINITION_FILE_MAX_BYTES) return tooLarge(file, found.size);
    // Non-blocking, in case the path was replaced by a FIFO since: open returns at once, and
    // the type is checked again on what was opened.
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return unreadable(file, notRegularFile(opened));
      const bytes = await handle.readFile();
      // The file may have grown since it was looked at.
      if (bytes.length > DEFINITION_FILE_MAX_BYTES) return tooLarge(file, bytes.length);
      return decoded(file, bytes);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return unreadable(file, `cannot read: ${describeReadError(error)}`);
  }
}

/**
 * All sources named by `paths`, in order; `-` is standard input (read once). Problems reading a
 * path are returned as sources with an `error`, so they are reported with everything else.
 * `readStdin(maxBytes)` returns at most `maxBytes + 1` bytes, so that endless input ends.
 */
export async function readDefinitionSources(paths: readonly string[], readStdin: (maxBytes: number) => Promise<Uint8Array>): Promise<DefinitionSource[]> {
  const sources: DefinitionSource[] = [];
  let stdinRead = false;
  for (const path of paths) {
    if (path === '-') {
      if (stdinRead) continue;
      stdinRead = true;
      const bytes = await readStdin(DEFINITION_FILE_MAX_BYTES);
      sources.push(bytes.length > DEFINITION_FILE_MAX_BYTES ? unreadable(STDIN_NAME, `standard input is over ${LIMIT_TEXT}`) : decoded(STDIN_NAME, bytes));
      continue;
    }
    let isDirectory = false;
    try {
      isDirectory = (await stat(path)).isDirectory();
    } catch (error) {
      sources.push(unreadable(path, `cannot read: ${describeReadError(error)}`));
      continue;
    }
    if (!isDirectory) {
      sources.push(await readDefinitionFile(path));
      continue;
    }
    const files = await definitionFilesIn(path);
    if (files.length === 0) sources.push(unreadable(path, 'the directory holds no .yaml or .yml files'));
    for (const file of files) sources.push(await readDefinitionFile(file));
  }
  return sources;
}
