/** Scrape option flags and --options -> checked ScrapeOptions. Flags win over the file. */
import { z } from 'zod';
import { UsageError } from '../errors/webwatch-error.js';
import { formatPath } from '../spec/issues.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import { validateScrapeOptions } from '../spec/schemas.js';
import type { Env } from '../lib/env.js';

export const scrapeFlagsSchema = z.object({
  format: z.array(z.string()).optional(),
  options: z.string().optional(),
  onlyMainContent: z.boolean().optional(),
  includeTag: z.array(z.string()).optional(),
  excludeTag: z.array(z.string()).optional(),
  header: z.array(z.string().regex(/^[^:\s]+:/, 'must be "Name: value"')).optional(),
  timeout: z.coerce.number().int().optional(),
  mobile: z.boolean().optional(),
  country: z.string().optional(),
  language: z.array(z.string()).optional(),
  verifyTls: z.boolean().optional(),
  maxAge: z.coerce.number().int().optional(),
  minAge: z.coerce.number().int().optional(),
  lockdown: z.boolean().optional(),
  waitFor: z.coerce.number().int().optional(),
  blockAds: z.boolean().optional(),
  profile: z.string().optional(),
  profileReadOnly: z.boolean().optional(),
});
type ScrapeFlags = z.infer<typeof scrapeFlagsSchema>;

/** Flags win over the options file; the result is checked like any ScrapeOptions. */
function mergeOptions(fromFile: ScrapeOptions, flags: ScrapeFlags): ScrapeOptions {
  const merged: Record<string, unknown> = { ...fromFile };
  if (flags.format)
    merged.formats = flags.format
      .flatMap((list) => list.split(','))
      .map((f) => f.trim())
      .filter(Boolean);
  if (flags.onlyMainContent !== undefined) merged.onlyMainContent = flags.onlyMainContent;
  if (flags.includeTag) merged.includeTags = flags.includeTag;
  if (flags.excludeTag) merged.excludeTags = flags.excludeTag;
  if (flags.header) {
    const headers = { ...fromFile.headers };
    for (const header of flags.header) {
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
    merged.headers = headers;
  }
  if (flags.timeout !== undefined) merged.timeout = flags.timeout;
  if (flags.mobile) merged.mobile = true;
  if (flags.country || flags.language) {
    merged.location = { ...fromFile.location, ...(flags.country && { country: flags.country }), ...(flags.language && { languages: flags.language }) };
  }
  if (flags.verifyTls) merged.skipTlsVerification = false;
  if (flags.maxAge !== undefined) merged.maxAge = flags.maxAge;
  if (flags.minAge !== undefined) merged.minAge = flags.minAge;
  if (flags.lockdown) merged.lockdown = true;
  if (flags.waitFor !== undefined) merged.waitFor = flags.waitFor;
  if (flags.blockAds !== undefined) merged.blockAds = flags.blockAds;
  if (flags.profileReadOnly && flags.profile === undefined && fromFile.profile === undefined) {
    throw new UsageError('--profile-read-only needs a profile: give --profile NAME (or profile in --options)');
  }
  if (flags.profile !== undefined || flags.profileReadOnly) {
    const profile = { ...fromFile.profile, ...(flags.profile !== undefined && { name: flags.profile }) } as NonNullable<ScrapeOptions['profile']>;
    merged.profile = flags.profileReadOnly ? { ...profile, saveChanges: false } : profile;
  }
  const result = validateScrapeOptions(merged, 'file');
  if (!result.ok) {
    const lines = result.problems.map((p) => `${formatPath(p.path)}: ${p.message}`);
    throw new UsageError(`invalid scrape options: ${lines.join('; ')}`, { details: lines });
  }
  return result.value;
}

export async function scrapeOptionsFromFlags(flags: ScrapeFlags, env: Env): Promise<ScrapeOptions> {
  // The YAML reader loads only for --options.
  const fromFile = flags.options ? await (await import('../core/scrape-options-file.js')).loadScrapeOptionsFile(flags.options, env) : {};
  return mergeOptions(fromFile, flags);
}
