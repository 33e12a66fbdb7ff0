/**
 * Screenshots and PDFs of the browser, as files under the engine's home, one directory per team:
 * where they are, how serve names them in its answers, and how long they are kept.
 */
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { engineHome } from '../store/database.js';

/** As long as a crawl's results: a day. */
export const ARTIFACT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** `<scrapeId>-<n>.<ext>`: nothing else is ever read from the directory. */
export const ARTIFACT_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d{1,4}\.(png|jpg|pdf)$/;
export const ARTIFACT_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', pdf: 'application/pdf' };

export function artifactsDir(env: Readonly<Record<string, string | undefined>>, team: string): string {
  return join(engineHome(env), 'artifacts', team);
}

/**
 * A document whose artifact `file://` URLs (of this team's directory) become URLs of `base`
 * (`https://host/v2/artifacts/`), for clients of serve on other machines.
 */
export function servedArtifacts<T>(document: T, directory: string, base: string): T {
  const prefix = `${pathToFileURL(directory).href}/`;
  const swap = (value: unknown): unknown =>
    typeof value === 'string' && value.startsWith(prefix) ? base + value.slice(prefix.length) : value;
  const doc = document as { screenshot?: unknown; actions?: { screenshots?: unknown[]; pdfs?: unknown[] } };
  if (doc.screenshot === undefined && doc.actions === undefined) return document;
  return {
    ...document,
    ...(doc.screenshot !== undefined && { screenshot: swap(doc.screenshot) }),
    ...(doc.actions && { actions: { ...doc.actions, screenshots: doc.actions.screenshots?.map(swap), pdfs: doc.actions.pdfs?.map(swap) } }),
  };
}

/** Deletes every team's artifacts older than the retention; returns how many went. */
export async function pruneArtifacts(env: Readonly<Record<string, string | undefined>>, now: number): Promise<number> {
  const root = join(engineHome(env), 'artifacts');
  let removed = 0;
  for (const team of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, team)).catch(() => [] as string[])) {
      if (!ARTIFACT_NAME.test(name)) continue;
      const path = join(root, team, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > ARTIFACT_RETENTION_MS) {
        await unlink(path).catch(() => undefined);
        removed++;
      }
    }
  }
  return removed;
}
