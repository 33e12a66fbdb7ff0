/** `interact` and `interact stop`: a prompt or code in the page of a scrape, on the backend; its answer as text or JSON. */
import { z } from 'zod';
import type { InteractRequest } from '../../contract/interact.js';
import { rememberedScrapes } from '../../services/interact-scrapes.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { withBackend } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';

const flagsSchema = z.object({
  code: z.string().min(1).optional(),
  scrapeId: z.string().min(1).optional(),
  language: z.enum(['node', 'python', 'bash']).optional(),
  timeout: z.coerce.number().min(1).max(300).optional(),
});
const stopFlagsSchema = z.object({});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The scrape named, or the last one this command line answered; and where it was, as remembered. */
async function scrapeOf(context: CommandContext, named: string | undefined) {
  const remembered = await rememberedScrapes(context.io.env);
  const scrapeId = named ?? remembered[0]?.scrapeId;
  if (!scrapeId) {
    throw new UsageError('no scrape to interact with: scrape a page first (webwatch scrape URL), or give --scrape-id', {
      suggestion: 'webwatch scrape https://example.com && webwatch interact "what does the page offer?"',
    });
  }
  const entry = remembered.find((each) => each.scrapeId === scrapeId);
  return { scrapeId, ...(entry && { origin: { url: entry.url, ...(entry.profile && { profile: entry.profile }), ...(entry.mobile && { mobile: true }) } }) };
}

export async function runInteract(context: CommandContext, words: string[], rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(flagsSchema, rawFlags);
  // As the hosted CLI reads it: a first word that is a scrape id names the scrape.
  const named = flags.scrapeId ?? (words.length > 0 && UUID.test(words[0]!) ? words.shift() : undefined);
  const prompt = words.join(' ').trim();
  if (!flags.code && !prompt)
    throw new UsageError('give a prompt, or --code with a program to run against the page', { suggestion: 'webwatch interact "Click the pricing tab"' });
  if (flags.code && prompt) throw new UsageError('give either a prompt or --code, not both');
  const { scrapeId, origin } = await scrapeOf(context, named);
  const request: InteractRequest = {
    ...(flags.code ? { code: flags.code, language: flags.language ?? 'node' } : { prompt }),
    ...(flags.timeout !== undefined && { timeout: flags.timeout }),
  };
  const { output } = context;
  return withBackend(context, 'interacting', async (backend) => {
    const answer = await backend.interact.run(scrapeId, request, origin);
    if (output.json) {
      output.jsonDocument(answer);
      return answer.killed ? EXIT.timeout : answer.exitCode !== undefined && answer.exitCode !== 0 ? EXIT.failure : EXIT.ok;
    }
    if (answer.liveViewUrl) output.notice(`live view: ${answer.liveViewUrl}`);
    const text = flags.code ? answer.stdout || answer.result || '' : (answer.output ?? '');
    if (text) output.data(text.trimEnd());
    if (answer.stderr) output.problem(answer.stderr.trimEnd());
    if (answer.truncated) output.info('the output was longer than 64 KiB a stream, and was cut');
    if (answer.killed) {
      output.problem(`error: the code did not finish within its timeout (${request.timeout ?? 30} s), and was stopped`);
      return EXIT.timeout;
    }
    return answer.exitCode !== undefined && answer.exitCode !== 0 ? EXIT.failure : EXIT.ok;
  });
}

export async function runInteractStop(context: CommandContext, named: string | undefined, rawFlags: unknown): Promise<ExitCode> {
  parseFlags(stopFlagsSchema, rawFlags);
  const { scrapeId } = await scrapeOf(context, named);
  const { output } = context;
  return withBackend(context, 'stopping the session', async (backend) => {
    const stopped = await backend.interact.stop(scrapeId);
    if (output.json) output.jsonDocument(stopped);
    else output.data(`session stopped (${scrapeId}): open ${(stopped.sessionDurationMs / 1000).toFixed(1)} s, ${stopped.creditsBilled} credits`);
    return EXIT.ok;
  });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { interact: flagsSchema, 'interact stop': stopFlagsSchema };
