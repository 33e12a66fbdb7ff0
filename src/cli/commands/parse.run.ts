/** `parse`: local files -> the backend's parse (here, or uploaded) -> markdown, JSON or files. */
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import type { ParsedDocument, ScrapeDocument } from '../../contract/scrape.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { PARSE_MAX_BYTES, parseFormatOf, parseOptionProblems, unsupportedFileType } from '../../spec/parse.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { formatPath } from '../../spec/issues.js';
import { openBackend } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { interruptible } from '../interrupt.js';
import { isDirectoryTarget, outputDirectory, pageFiles, writePageFiles } from '../page-files.js';
import { documentsText } from '../scrape-output.js';

const flagsSchema = z.object({
  format: z.array(z.string()).optional(),
  output: z.string().optional(),
  filename: z.string().min(1).optional(),
});

/** The file's bytes and name: a path, or standard input named by --filename. */
async function readInput(path: string, context: CommandContext, filename: string | undefined): Promise<{ body: Buffer; filename: string }> {
  if (path === '-') {
    if (!filename) throw new UsageError('standard input needs --filename NAME: its extension says the format (report.docx)');
    const bytes = await context.io.readStdinBytes(PARSE_MAX_BYTES + 1);
    return { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), filename };
  }
  try {
    return { body: await readFile(path), filename: basename(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`);
  }
}

/** The output helpers speak of pages by URL: a parsed file is named by its file. */
const asPage = (document: ParsedDocument): ScrapeDocument => ({
  ...document,
  metadata: { ...document.metadata, sourceURL: document.metadata.sourceFile, url: document.metadata.sourceFile },
});

export async function runParse(context: CommandContext, paths: string[], rawFlags: unknown): Promise<ExitCode> {
  const { output } = context;
  const flags = parseFlags(flagsSchema, rawFlags);
  if (paths.filter((path) => path === '-').length > 1) throw new UsageError('standard input can be read once');
  const formats = (flags.format ?? ['markdown'])
    .flatMap((list) => list.split(','))
    .map((format) => format.trim())
    .filter(Boolean);
  const excluded = parseOptionProblems({ formats });
  const checked = validateScrapeOptions({ formats }, 'file');
  if (excluded.length > 0) throw new UsageError(`invalid --format: ${excluded.map((p) => p.message).join('; ')}`);
  if (!checked.ok) throw new UsageError(`invalid --format: ${checked.problems.map((p) => `${formatPath(p.path)}: ${p.message}`).join('; ')}`);
  const inputs = [];
  for (const path of paths) {
    const input = await readInput(path, context, flags.filename);
    if (input.body.length > PARSE_MAX_BYTES) throw new UsageError(`${path} is over the ${PARSE_MAX_BYTES / 1024 / 1024} MB limit of parse`);
    const format = parseFormatOf(input.filename, undefined);
    if (!format) throw unsupportedFileType(input.filename, 'its extension is none that parse reads');
    inputs.push({ ...input, contentType: format.mimeTypes[0]! });
  }
  const intoDirectory = flags.output !== undefined && (await isDirectoryTarget(flags.output, inputs.length > 1));
  if (intoDirectory) await outputDirectory(flags.output!);
  const backend = await openBackend(context, 'parsing');
  const interrupt = interruptible();
  const documents: ParsedDocument[] = [];
  try {
    for (const input of inputs) documents.push(await backend.parse.parse(input, checked.value, interrupt.signal));
  } finally {
    interrupt.dispose();
    await backend.close();
  }
  const pages = documents.map((document) => ({ url: document.metadata.sourceFile, document: asPage(document) }));
  if (intoDirectory) {
    const written: string[] = [];
    for (const { url, document } of pages)
      written.push(...(await writePageFiles(flags.output!, pageFiles(url.replace(/\.[^.]+$/, ''), document, formats, output.json))));
    if (written.length > 0) output.info(`wrote ${written.length === 1 ? written[0] : `${written.length} files into ${flags.output}`}`);
  } else if (output.json) {
    const lines = documents.map((document) => JSON.stringify({ success: true, data: document }, null, documents.length === 1 ? 2 : undefined));
    if (flags.output) await writeFile(flags.output, `${lines.join('\n')}\n`);
    else context.io.stdout.write(`${lines.join('\n')}\n`);
  } else {
    const { text } = documentsText(pages, formats);
    if (flags.output) await writeFile(flags.output, `${text}\n`);
    else output.data(text);
  }
  for (const document of documents) if (document.warning) output.problem(`${document.metadata.sourceFile}: ${document.warning}`);
  return EXIT.ok;
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { parse: flagsSchema };
