/**
 * `profile` (spec §2.7): browser storage (cookies, localStorage, IndexedDB) kept between scrapes
 * under a name, per team: `profiles/<team>/<sha256 of the name>.json` in the engine's home, so a
 * name is never a path. A session that saves changes holds the profile's lock file, made with
 * O_EXCL so that it also holds across processes (the command line and serve share a home); a
 * second saving session waits for it, up to PROFILE_WAIT_MS, then fails with 409 Conflict.
 * A session with `saveChanges: false` reads the last saved state and takes no lock.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { engineHome } from '../store/database.js';
import { processAlive } from '../store/owner-process.js';
import type { Env } from '../../lib/env.js';

/** How long a second saving session of a profile waits for the first one to end. */
export const PROFILE_WAIT_MS = 30_000;
const POLL_MS = 100;
const STALE_EMPTY_LOCK_MS = 10_000;

export function profilesDir(env: Env, team: string): string {
  return join(engineHome(env), 'profiles', team);
}

export interface ProfileSession {
  /** The saved state to start the browser context from, if the profile has one. */
  state?: string;
  /** Writes the context's storage as the profile's new state (only for a saving session). */
  save(storage: () => Promise<unknown>): Promise<void>;
  release(): Promise<void>;
}

/**
 * Opens the profile `name` of the directory (a team's): its saved state, and for a saving
 * session the lock, waited for at most `waitMs` (and no longer than the scrape may last).
 */
export async function openProfile(
  directory: string,
  profile: { name: string; saveChanges?: boolean },
  waitMs: number,
  signal?: AbortSignal,
): Promise<ProfileSession> {
  const file = join(directory, `${createHash('sha256').update(profile.name).digest('hex')}.json`);
  const saving = profile.saveChanges ?? true;
  const lock = `${file}.lock`;
  if (saving) await acquire(directory, lock, profile.name, waitMs, signal);
  const state = await stat(file).then(
    () => file,
    () => undefined,
  );
  let released = false;
  return {
    ...(state && { state }),
    async save(storage) {
      if (!saving || released) return;
      const data = JSON.stringify(await storage());
      // Written whole, then renamed: a reader never sees half a profile.
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, data, { mode: 0o600 });
      await rename(partial, file);
    },
    async release() {
      if (!saving || released) return;
      released = true;
      await unlink(lock).catch(() => undefined);
    },
  };
}

async function acquire(directory: string, lock: string, name: string, waitMs: number, signal?: AbortSignal): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // A lock whose process has ended (a crash, a kill) is stale: it goes, and the profile is taken.
    const owner = Number(await readFile(lock, 'utf8').catch(() => ''));
    const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? 0);
    // A lock without a process id is one whose writer died between creating and writing it.
    if (owner ? owner !== process.pid && !processAlive(owner) : age > STALE_EMPTY_LOCK_MS) {
      await unlink(lock).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline || signal?.aborted) {
      throw new WebwatchError(ERROR_MESSAGES.conflict, {
        status: 409,
        details: {
          profile: name,
          reason: `another scrape that saves changes to profile "${name}" is still running; only one may run at a time (set saveChanges: false to read the profile without saving)`,
        },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
