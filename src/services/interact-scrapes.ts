/**
 * The scrapes `webwatch interact` works on: each scrape the command line answers is remembered
 * (its id, where it landed, its profile and device), the newest first, so that `interact` without
 * --scrape-id takes the last one, and the embedded engine, which keeps no scrape documents, knows
 * where to open a session's page. Kept in the engine's home, readable by its owner only; a
 * lockdown scrape (which keeps nothing) is not kept.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { InteractOrigin } from '../contract/interact.js';
import type { ScrapeDocument } from '../contract/scrape.js';
import { engineHome } from '../engine/store/database.js';
import type { Env } from '../lib/env.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';

/** How many scrapes are remembered. */
export const SCRAPES_KEPT = 50;

export interface RememberedScrape extends InteractOrigin {
  scrapeId: string;
  at: string;
}

const fileOf = (env: Env) => join(engineHome(env), 'interact', 'scrapes.json');

export async function rememberedScrapes(env: Env): Promise<RememberedScrape[]> {
  try {
    const list = JSON.parse(await readFile(fileOf(env), 'utf8')) as unknown;
    return Array.isArray(list) ? (list as RememberedScrape[]).filter((entry) => typeof entry?.scrapeId === 'string' && typeof entry.url === 'string') : [];
  } catch {
    return [];
  }
}

/** What of a scrape's options its session opens with: its profile and device. */
export const sessionOptionsOf = (options: ScrapeOptions): Omit<InteractOrigin, 'url'> => ({
  ...(options.profile && { profile: options.profile }),
  ...(options.mobile && { mobile: true }),
});

/** Where a scrape landed, with its session's options; none for a lockdown scrape (which keeps nothing) or one without an id. */
export function originOf(document: ScrapeDocument, options: ScrapeOptions): (InteractOrigin & { scrapeId: string }) | undefined {
  const url = document.metadata.url ?? document.metadata.sourceURL;
  if (options.lockdown || !document.metadata.scrapeId || !url) return undefined;
  return { scrapeId: document.metadata.scrapeId, url, ...sessionOptionsOf(options) };
}

/** Remembers the documents a scrape answered, the newest first. */
export async function rememberScrapes(env: Env, documents: readonly ScrapeDocument[], options: ScrapeOptions, now: Date): Promise<void> {
  const added: RememberedScrape[] = documents.flatMap((document) => {
    const origin = originOf(document, options);
    return origin ? [{ ...origin, at: now.toISOString() }] : [];
  });
  if (added.length === 0) return;
  const ids = new Set(added.map((entry) => entry.scrapeId));
  const list = [...added, ...(await rememberedScrapes(env)).filter((entry) => !ids.has(entry.scrapeId))].slice(0, SCRAPES_KEPT);
  const file = fileOf(env);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(`${file}.${process.pid}`, JSON.stringify(list), { mode: 0o600 });
  await rename(`${file}.${process.pid}`, file);
}
