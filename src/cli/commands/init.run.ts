/** `init`: the starter definition file, and the JSON Schema its first line points editors at. */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { starterDefinition } from '../../core/definitions/starter.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { describeHttpUrlProblem } from '../../spec/fields.js';
import { jsonSchemaFor } from '../../spec/json-schema.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';

const SCHEMA_FILE = 'webwatch-monitor.schema.json';

const flagsSchema = z.object({
  type: z.enum(['scrape', 'crawl', 'search']),
  name: z.string().min(1).max(256).optional(),
  url: z.string().optional(),
});

/** Writes `text` to a new file only: an existing one is never replaced (`wx` fails atomically). */
async function writeNew(path: string, text: string): Promise<boolean> {
  try {
    await writeFile(path, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new WebwatchError(`cannot write ${path}: ${(error as Error).message}`, { exitCode: EXIT.failure });
  }
}

export async function runInit(context: CommandContext, file: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(flagsSchema, rawFlags);
  const { io, output } = context;
  if (flags.url !== undefined) {
    if (flags.type === 'search') throw new UsageError('--url: a search target has queries, not a URL (edit them in the file)');
    const problem = describeHttpUrlProblem(flags.url);
    if (problem) throw new UsageError(`--url ${flags.url}: ${problem}`);
  }
  // Named after its file, so that files made one after another do not share a name.
  const name = flags.name ?? (file === '-' ? 'My monitor' : basename(file).replace(/\.ya?ml$/i, '') || 'My monitor');
  const text = starterDefinition({ type: flags.type, name, url: flags.url, schemaPath: `./${SCHEMA_FILE}` });
  if (file === '-') {
    io.stdout.write(text);
    return EXIT.ok;
  }
  const path = resolve(io.cwd(), file);
  await mkdir(dirname(path), { recursive: true }).catch((error: Error) => {
    throw new UsageError(`cannot make the directory of ${file}: ${error.message}`);
  });
  if (!(await writeNew(path, text))) {
    throw new WebwatchError(`${file} exists: init never overwrites a file`, {
      exitCode: EXIT.conflict,
      code: 'FILE_EXISTS',
      suggestion: `give another name (webwatch init ${join(dirname(file), `new-${basename(file)}`)}), or edit the file you have`,
    });
  }
  // The schema beside the file, for the editor; one already there is kept (it may be newer).
  const schemaFile = join(dirname(path), SCHEMA_FILE);
  const schemaWritten = await writeNew(schemaFile, `${JSON.stringify(jsonSchemaFor('monitor'), null, 2)}\n`);
  const shown = relative(io.cwd(), schemaFile) || SCHEMA_FILE;
  if (output.json) output.jsonDocument({ file, schema: shown, schemaWritten });
  else {
    output.info(`wrote ${file}${schemaWritten ? ` and ${shown} (for editors)` : ''}: a ${flags.type} monitor to edit`);
    output.info(`next: webwatch monitor validate ${file} && webwatch monitor apply ${file}`);
  }
  return EXIT.ok;
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { init: flagsSchema };
