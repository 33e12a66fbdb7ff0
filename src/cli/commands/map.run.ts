/** `map`: flags -> a map request -> backend; one URL per line, or the links as JSON. */
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { formatPath } from '../../spec/issues.js';
import { validateMapRequest } from '../../spec/map.js';
import { startProgress } from '../../ui/progress.js';
import { withBackend } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';

const flagsSchema = z.object({
  search: z.string().optional(),
  sitemap: z.enum(['include', 'skip', 'only']).optional(),
  includeSubdomains: z.boolean().optional(),
  keepQueryParameters: z.boolean().optional(),
  limit: z.coerce.number().int().optional(),
  timeout: z.coerce.number().int().optional(),
});

export async function runMap(context: CommandContext, url: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(flagsSchema, rawFlags);
  const raw = {
    url,
    search: flags.search,
    sitemap: flags.sitemap,
    includeSubdomains: flags.includeSubdomains,
    ignoreQueryParameters: flags.keepQueryParameters ? false : undefined,
    limit: flags.limit,
    timeout: flags.timeout,
  };
  const validation = validateMapRequest(Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)));
  if (!validation.ok) {
    const lines = validation.problems.map(
      (p) => `${formatPath(p.path) === 'url' ? '<url>' : `--${formatPath(p.path).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`}: ${p.message}`,
    );
    throw new UsageError(`invalid map request: ${lines.join('; ')}`, { details: lines });
  }
  return withBackend(context, 'mapping', async (backend) => {
    const progress = await startProgress(context.io, context.output, `mapping ${url}`);
    let links;
    try {
      ({ links } = await backend.map.links(validation.value));
    } finally {
      progress.stop();
    }
    const { output } = context;
    if (output.json) output.jsonDocument({ links });
    else if (links.length > 0) output.data(links.map((link) => (link.title ? `${link.url}\t${link.title}` : link.url)).join('\n'));
    output.info(`${links.length} URL${links.length === 1 ? '' : 's'}`);
    return EXIT.ok;
  });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { map: flagsSchema };
