/**
 * Screenshots and PDFs of the browser, as files under the engine's home, one directory per team:
 * where they are, how serve names them in its answers, and how long they are kept.
 */
import { copyFile, link, mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { engineHome } from '../store/database.js';
import type { Env } from '../../lib/env.js';

/** As long as a crawl's results: a day. */
export const ARTIFACT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** `<scrapeId>-<n>.<ext>`: nothing else is ever read from the directory. */
export const ARTIFACT_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d{1,4}\.(png|jpg|pdf|mp4|webm|mp3)$/;
export const ARTIFACT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
};
/**
 * A media file being downloaded whole for the tools (media/download-media.ts): never served, and
 * pruned with the artifacts when a process that died left it behind.
 */
export const PARTIAL_DOWNLOAD_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-download\.part$/;
export const partialDownloadName = (scrapeId: string) => `${scrapeId}-download.part`;
/** The artifacts of the video and audio formats, which serve gives by signed link. */
export const isMediaArtifact = (name: string) => /^(video|audio)\//.test(ARTIFACT_TYPES[name.split('.').pop()!] ?? '');

export function artifactsDir(env: Env, team: string): string {
  return join(engineHome(env), 'artifacts', team);
}

/** Screenshots kept with monitor checks: out of the 24 h pruning, deleted with their check. */
export const KEPT_DIR = 'kept';

/**
 * Keeps the artifact at `fileUrl` (of the team's `directory`) past the 24 h pruning, as
 * `kept/<name>`; returns its name, or undefined when it is not one of the directory's artifacts.
 */
export async function keepArtifact(fileUrl: string, directory: string): Promise<string | undefined> {
  if (!fileUrl.startsWith('file:')) return undefined;
  const path = fileURLToPath(fileUrl);
  const name = basename(path);
  if (dirname(path) !== directory || !ARTIFACT_NAME.test(name)) return undefined;
  const kept = join(directory, KEPT_DIR);
  await mkdir(kept, { recursive: true, mode: 0o700 });
  // A second name for the same bytes; a copy where links are not possible.
  await link(path, join(kept, name)).catch((error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? undefined : copyFile(path, join(kept, name))));
  return name;
}

/** Deletes kept screenshots by name (their checks have gone). */
export async function deleteKept(directory: string, names: readonly string[]): Promise<void> {
  for (const name of names) if (ARTIFACT_NAME.test(name)) await unlink(join(directory, KEPT_DIR, name)).catch(() => undefined);
}

/**
 * A document whose artifact `file://` URLs (of this team's directory) become URLs of `base`
 * (`https://host/v2/artifacts/`), for clients of serve on other machines.
 */
export function servedArtifacts<T>(document: T, directory: string, base: string, mediaLink?: (name: string) => string): T {
  const prefix = `${pathToFileURL(directory).href}/`;
  const swap = (value: unknown): unknown => (typeof value === 'string' && value.startsWith(prefix) ? base + value.slice(prefix.length) : value);
  // Video and audio files: a signed link of serve's own, when it gives them (media-links.ts).
  const swapMedia = (value: unknown): unknown =>
    mediaLink && typeof value === 'string' && value.startsWith(prefix) && !value.slice(prefix.length).includes('/')
      ? mediaLink(value.slice(prefix.length))
      : swap(value);
  // Kept screenshots of checks, in kept/, are served as kept/<name>.
  const doc = document as { screenshot?: unknown; video?: unknown; audio?: unknown; actions?: { screenshots?: unknown[]; pdfs?: unknown[] } };
  if (doc.screenshot === undefined && doc.video === undefined && doc.audio === undefined && doc.actions === undefined) return document;
  return {
    ...document,
    ...(doc.screenshot !== undefined && { screenshot: swap(doc.screenshot) }),
    ...(doc.video !== undefined && { video: swapMedia(doc.video) }),
    ...(doc.audio !== undefined && { audio: swapMedia(doc.audio) }),
    ...(doc.actions && { actions: { ...doc.actions, screenshots: doc.actions.screenshots?.map(swap), pdfs: doc.actions.pdfs?.map(swap) } }),
  };
}

/** Deletes every team's artifacts older than the retention; returns how many went. */
export async function pruneArtifacts(env: Env, now: number): Promise<number> {
  const root = join(engineHome(env), 'artifacts');
  let removed = 0;
  for (const team of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, team)).catch(() => [] as string[])) {
      if (!ARTIFACT_NAME.test(name) && !PARTIAL_DOWNLOAD_NAME.test(name)) continue;
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
