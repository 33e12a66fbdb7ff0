/** `extract`: flags -> an extract request -> backend, waited for; the result as JSON. */
import { z } from 'zod';
import { extractAndWait } from '../../core/extract.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { validateExtractRequest } from '../../spec/extract.js';
import { formatPath } from '../../spec/issues.js';
import { startProgress } from '../../ui/progress.js';
import { styledLine } from '../../ui/terminal-text.js';
import { withBackend } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { readSchemaFile } from '../schema-file.js';

const flagsSchema = z.object({
  prompt: z.string().optional(),
  schema: z.string().optional(),
  systemPrompt: z.string().optional(),
  showSources: z.boolean().optional(),
  webSearch: z.boolean().optional(),
  allowExternalLinks: z.boolean().optional(),
  ignoreInvalidUrls: z.boolean().optional(),
});

/** A problem of the request in the words of the command line: its flag, or <urls>. */
function flagOf(path: string): string {
  if (path.startsWith('urls')) return `<urls>${path.slice(4)}`;
  return `--${path.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

export async function runExtract(context: CommandContext, urls: string[], rawFlags: unknown): Promise<ExitCode> {
  const { output, io } = context;
  const flags = parseFlags(flagsSchema, rawFlags);
  const raw = {
    urls,
    prompt: flags.prompt,
    schema: flags.schema === undefined ? undefined : await readSchemaFile(flags.schema),
    systemPrompt: flags.systemPrompt,
    showSources: flags.showSources,
    enableWebSearch: flags.webSearch,
    allowExternalLinks: flags.allowExternalLinks,
    ignoreInvalidURLs: flags.ignoreInvalidUrls,
    origin: 'webwatch-cli',
  };
  const validation = validateExtractRequest(Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)));
  if (!validation.ok) {
    const lines = validation.problems.map((p) => `${flagOf(formatPath(p.path))}: ${p.message}`);
    throw new UsageError(`invalid extract request: ${lines.join('; ')}`, { details: lines });
  }
  const { request, warnings } = validation.value;
  const warn = (text: string) => output.info(styledLine`${output.messageStyle.yellow('warning:')} ${text}`);
  for (const warning of warnings) warn(warning);
  return withBackend(context, 'extracting', async (backend) => {
    const progress = await startProgress(io, output, `extracting from ${request.urls.length} URL${request.urls.length === 1 ? '' : 's'}`);
    let status;
    try {
      status = await extractAndWait(backend, request, {
        onStarted: (id, warning) => {
          progress.update(`extract job ${id}`);
          if (warning) warn(warning);
        },
      });
    } finally {
      progress.stop();
    }
    if (status.status !== 'completed') {
      throw new WebwatchError(status.error ?? `the extract job ended ${status.status}`, { code: 'EXTRACT_FAILED', details: { id: status.id } });
    }
    if (output.json) {
      output.jsonDocument(status);
      return EXIT.ok;
    }
    output.data(JSON.stringify(status.data ?? null, null, 2));
    if (status.warning) warn(status.warning);
    for (const [field, pages] of Object.entries(status.sources ?? {})) output.info(`source ${field}: ${pages.join(' ')}`);
    output.info(`extract job ${status.id}: ${status.creditsUsed} credit${status.creditsUsed === 1 ? '' : 's'}`);
    return EXIT.ok;
  });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { extract: flagsSchema };
