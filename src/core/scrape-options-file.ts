/**
 * `--options file.yaml`: ScrapeOptions checked by the same schemas as definition files, with
 * the same located errors (file:line:col path message).
 */
import { UsageError } from '../errors/webwatch-error.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import { validateScrapeOptions } from '../spec/schemas.js';
import { formatLocated } from '../spec/located-line.js';
import { parseDefinitionFile } from './definitions/parse.js';
import { readDefinitionFile } from './definitions/read.js';
import type { Env } from '../lib/env.js';

export async function loadScrapeOptionsFile(file: string, env: Env): Promise<ScrapeOptions> {
  // Read as definition files are: never a FIFO or device, within the size limit, strict UTF-8.
  const source = await readDefinitionFile(file);
  if (source.text === undefined) {
    const problem = source.error ?? { message: 'cannot read', line: null, column: null };
    throw new UsageError(`invalid scrape options:\n${formatLocated(file, { ...problem, path: '' })}`);
  }
  const parsed = parseDefinitionFile(source.text, env);
  const lines = parsed.problems.map((p) => formatLocated(file, p));
  if (parsed.monitors.length !== 1 && lines.length === 0) lines.push(`${file}: scrape options are one mapping of fields`);
  const candidate = parsed.monitors[0];
  if (candidate && lines.length === 0) {
    lines.push(...candidate.problems.map((p) => formatLocated(file, p)));
    const result = validateScrapeOptions(candidate.value, 'file');
    if (result.ok && lines.length === 0) return result.value;
    if (!result.ok) {
      for (const problem of result.problems) {
        const at = candidate.locate(problem.path, problem.message.startsWith('unknown field'));
        lines.push(formatLocated(file, { ...problem, ...at }));
      }
    }
  }
  throw new UsageError(`invalid scrape options:\n${lines.join('\n')}`, { details: lines });
}
