/** `scrape`: flags and --options -> ScrapeOptions -> backend -> markdown, JSON or files. */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { cacheNote, freshByDefault } from '../../core/scrape.js';
import { rememberScrapes } from '../../services/interact-scrapes.js';
import type { ScrapeResult } from '../../services/interfaces.js';
import { scrapeEach } from '../../services/scrape-each.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { startProgress } from '../../ui/progress.js';
import { asWebwatchError } from '../../ui/render-error.js';
import { styledLine } from '../../ui/terminal-text.js';
import { openBackend } from '../backend.js';
import { interruptible } from '../interrupt.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { scrapeFlagsSchema, scrapeOptionsFromFlags } from '../scrape-options-flags.js';
import { isDirectoryTarget, keptMediaFile, outputDirectory, pageFiles, slugNamer, writePageFiles } from '../page-files.js';
import { documentsText, formatNames } from '../scrape-output.js';

const flagsSchema = scrapeFlagsSchema.extend({ output: z.string().optional(), input: z.string().optional() });

/** URLs of an --input file: one per line; blank lines and # comments skipped. */
async function urlsFromInput(input: string, io: CommandContext['io']): Promise<string[]> {
  let text: string;
  if (input === '-') text = await io.readStdin();
  else {
    try {
      text = await readFile(input, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --input ${input}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean);
}

const errorLine = (result: { url: string; error: unknown }) => {
  const error = asWebwatchError(result.error);
  return {
    success: false,
    url: result.url,
    error: error.message,
    ...(error.code && { code: error.code }),
    ...(error.details !== undefined && { details: error.details }),
  };
};

export async function runScrape(context: CommandContext, given: string[], rawFlags: unknown): Promise<ExitCode> {
  const { io, output } = context;
  const flags = parseFlags(flagsSchema, rawFlags);
  const urls = [...given, ...(flags.input ? await urlsFromInput(flags.input, io) : [])];
  if (urls.length === 0) throw new UsageError(flags.input ? `--input ${flags.input} has no URL` : 'give one or more URLs, or --input <file>');
  const options = freshByDefault(await scrapeOptionsFromFlags(flags, io.env));
  const intoDirectory = flags.output !== undefined && (await isDirectoryTarget(flags.output, urls.length > 1));
  if (intoDirectory) await outputDirectory(flags.output!);
  const backend = await openBackend(context, 'scraping');

  const progress = await startProgress(io, output, urls.length === 1 ? `scraping ${urls[0]}` : `scraping 0/${urls.length}`);
  let results: ScrapeResult[];
  const interrupt = interruptible();
  try {
    if (urls.length === 1) results = await scrapeEach(backend.scrape, urls, options, undefined, interrupt.signal);
    else results = await backend.scrape.many(urls, options, (done) => progress.update(`scraping ${done}/${urls.length}`), interrupt.signal);
  } catch (error) {
    if (interrupt.signal.aborted && !(error instanceof WebwatchError && error.exitCode === EXIT.interrupted))
      throw new WebwatchError('interrupted', { exitCode: EXIT.interrupted });
    throw error;
  } finally {
    interrupt.dispose();
    progress.stop();
    await backend.close();
  }

  const failures = results.filter((r): r is { url: string; error: unknown } => 'error' in r);
  if (urls.length === 1 && failures.length === 1) throw failures[0]!.error;
  const note = cacheNote(
    results.flatMap((r) => ('document' in r ? [r.document] : [])),
    io.now(),
    options,
  );
  // Said piped too: a stale answer in `scrape URL | grep` should not pass unnoticed. With --json
  // the document's cacheState and cachedAt say it.
  if (note && !output.json) output.info(output.messageStyle.dim(note));

  const pages = results.filter((r): r is { url: string; document: ScrapeDocument } => 'document' in r);
  // `webwatch interact` goes on in the last page scraped (a best effort: a read-only home keeps none).
  await rememberScrapes(
    io.env,
    pages.map((page) => page.document),
    options,
    io.now(),
  ).catch(() => undefined);
  const formats = formatNames(options);
  if (intoDirectory) {
    const slugFor = slugNamer();
    const written: string[] = [];
    for (const { url, document } of pages) written.push(...(await writePageFiles(flags.output!, pageFiles(slugFor(url), document, formats, output.json))));
    // The names were made here, so say them (a count, for several pages).
    if (urls.length === 1 && written.length > 0) output.info(`wrote ${written.join(', ')}`);
    else if (written.length > 0) output.info(`wrote ${written.length} file${written.length === 1 ? '' : 's'} into ${flags.output}`);
  } else if (flags.output && output.json) await writeFile(flags.output, `${JSON.stringify({ success: true, data: pages[0]!.document }, null, 2)}\n`);
  else if (output.json && urls.length === 1) output.jsonDocument({ success: true, data: pages[0]!.document });
  else if (output.json) {
    for (const result of results) io.stdout.write(`${JSON.stringify('error' in result ? errorLine(result) : { success: true, data: result.document })}\n`);
  } else {
    const { text, leftOut } = documentsText(pages, formats);
    // `-o clip.mp4 --format video`: the file itself, not its address.
    const kept = flags.output && formats.length === 1 && pages.length === 1 ? keptMediaFile(pages[0]!.document, formats[0]!) : undefined;
    if (kept) await copyFile(kept, flags.output!);
    else if (flags.output) await writeFile(flags.output, `${text}\n`);
    else output.data(text);
    for (const format of leftOut) output.info(`${format} is not printed with other formats: --json includes it, -o <directory> writes the file itself`);
  }
  for (const failure of failures)
    if (!output.json || flags.output)
      output.problem(styledLine`${output.messageStyle.red('error:')} ${failure.url}: ${asWebwatchError(failure.error).message}`);
  return failures.length > 0 ? asWebwatchError(failures[0]!.error).exitCode : EXIT.ok;
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { scrape: flagsSchema };
