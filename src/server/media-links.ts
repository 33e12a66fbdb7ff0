/**
 * Signed, expiring links to the video and audio files serve keeps for a team: the URL a document
 * carries in `video` and `audio` works without a key until it expires (with the artifacts, after
 * a day), as the hosted service's signed storage URLs do. The signature is an HMAC-SHA256 over
 * the team, the file's name and the expiry, with a key of the server's kept in the engine's home
 * (created on first use, readable by its owner only). A changed signature, team or expiry, or an
 * expired link, gets 403 whether the file exists or not; a valid link to a file that is gone, 404.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACT_RETENTION_MS } from '../engine/browser/artifacts.js';
import { engineHome } from '../engine/store/database.js';
import type { Env } from '../lib/env.js';

/** A link lasts as long as the file is kept: a day. */
export const MEDIA_LINK_LIFETIME_MS = ARTIFACT_RETENTION_MS;
const KEY_FILE = 'media-links.key';

export interface MediaLinks {
  /** The query of a link to `name` of `team`, valid until `expiresAt` (epoch ms). */
  query(team: string, name: string, expiresAt: number): string;
  /** The link to `name` of `team` on the server at `origin`, valid for a lifetime from `now`. */
  url(origin: string, team: string, name: string, now: number): string;
  /** Whether a link's query is this server's, unchanged and not expired at `now`. */
  valid(
    name: string,
    query: { team?: unknown; expires?: unknown; signature?: unknown },
    now: number,
  ): query is { team: string; expires: string; signature: string };
}

export function mediaLinks(env: Env): MediaLinks {
  let key: Buffer | undefined;
  const secret = () => (key ??= loadKey(join(engineHome(env), KEY_FILE)));
  const sign = (team: string, name: string, expires: string) => createHmac('sha256', secret()).update(`${team}\n${name}\n${expires}`).digest('hex');
  const query = (team: string, name: string, expiresAt: number) => {
    const expires = String(Math.floor(expiresAt / 1000));
    return `team=${encodeURIComponent(team)}&expires=${expires}&signature=${sign(team, name, expires)}`;
  };
  return {
    query,
    url: (origin, team, name, now) => `${origin}/v2/media/${name}?${query(team, name, now + MEDIA_LINK_LIFETIME_MS)}`,
    valid(name, query, now): query is { team: string; expires: string; signature: string } {
      const { team, expires, signature } = query;
      if (
        typeof team !== 'string' ||
        typeof expires !== 'string' ||
        typeof signature !== 'string' ||
        !/^\d{1,12}$/.test(expires) ||
        !/^[0-9a-f]{64}$/.test(signature)
      )
        return false;
      const expected = Buffer.from(sign(team, name, expires), 'hex');
      if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return false;
      return Number(expires) * 1000 > now;
    },
  };
}

function loadKey(path: string): Buffer {
  try {
    const key = readFileSync(path);
    if (key.length >= 32) return key;
  } catch {
    // First use: made below.
  }
  const key = randomBytes(32);
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  try {
    // Never over another process's key: the first one written is everyone's.
    writeFileSync(path, key, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path);
    throw error;
  }
  return key;
}
