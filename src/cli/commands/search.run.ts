/** `search`: flags -> a search request -> backend; results as rows, or the answer as JSON. */
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { formatPath } from '../../spec/issues.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { validateSearchRequest } from '../../spec/search.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { startProgress } from '../../ui/progress.js';
import { renderRows } from '../../ui/table.js';
import { styledLine } from '../../ui/terminal-text.js';
import { withBackend } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';

const flagsSchema = z.object({
  limit: z.coerce.number().int().optional(),
  sources: z.string().optional(),
  tbs: z.string().optional(),
  includeDomain: z.array(z.string()).optional(),
  excludeDomain: z.array(z.string()).optional(),
  scrape: z.boolean().optional(),
  format: z.array(z.string()).optional(),
  timeout: z.coerce.number().int().optional(),
});

const FLAG_OF: Record<string, string> = { query: '<query>', includeDomains: '--include-domain', excludeDomains: '--exclude-domain' };
const flagName = (path: string) => FLAG_OF[path.split(/[.[]/)[0]!] ?? `--${path.split(/[.[]/)[0]!}`;

export async function runSearch(context: CommandContext, query: string, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(flagsSchema, rawFlags);
  const raw = {
    query,
    limit: flags.limit,
    sources: flags.sources
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    tbs: flags.tbs,
    includeDomains: flags.includeDomain,
    excludeDomains: flags.excludeDomain,
    timeout: flags.timeout,
  };
  const validation = validateSearchRequest(Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)));
  if (!validation.ok) {
    const lines = validation.problems.map((p) => `${flagName(formatPath(p.path))}: ${p.message}`);
    throw new UsageError(`invalid search: ${lines.join('; ')}`, { details: lines });
  }
  let scrapeOptions: ScrapeOptions | undefined;
  if (flags.scrape || flags.format) {
    const options = validateScrapeOptions({ formats: flags.format?.flatMap((f) => f.split(',').map((s) => s.trim())).filter(Boolean) ?? ['markdown'] }, 'file');
    if (!options.ok) throw new UsageError(`invalid --format: ${options.problems.map((p) => p.message).join('; ')}`);
    scrapeOptions = options.value;
  }
  return withBackend(context, 'searching', async (backend) => {
    const progress = await startProgress(context.io, context.output, `searching ${query}`);
    let answer;
    try {
      answer = await backend.search.query(validation.value, scrapeOptions);
    } finally {
      progress.stop();
    }
    const { output } = context;
    if (answer.warning) output.info(styledLine`${output.messageStyle.yellow('warning:')} ${answer.warning}`);
    if (output.json) {
      output.jsonDocument(answer);
      return EXIT.ok;
    }
    const images = answer.images?.map((r) => ({ position: r.position, url: r.imageUrl, title: r.title }));
    const groups = [
      ['web', answer.web],
      ['news', answer.news],
      ['images', images],
    ] as const;
    for (const [name, results] of groups) {
      if (!results) continue;
      if (results.length === 0) {
        output.info(`${name}: no results`);
        continue;
      }
      if (groups.filter(([, r]) => r).length > 1) output.info(`${name}:`);
      output.data(
        await renderRows(
          output,
          ['#', 'url', 'title'],
          results.map((r) => [String(r.position), r.url, r.title ?? '']),
        ),
      );
    }
    return EXIT.ok;
  });
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { search: flagsSchema };
