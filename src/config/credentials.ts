/**
 * The API key saved by `webwatch login`: a JSON file under the XDG config directory, readable
 * by its owner only (mode 0600), written atomically.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { userConfigPath } from './config.js';
import type { Env } from '../lib/env.js';

export interface Credentials {
  apiKey: string;
  apiUrl?: string;
}

export function credentialsPath(env: Env): string {
  return join(dirname(userConfigPath(env)), 'credentials.json');
}

export function readCredentials(env: Env): Credentials | undefined {
  const file = credentialsPath(env);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Credentials>;
    return typeof parsed.apiKey === 'string' ? { apiKey: parsed.apiKey, ...(typeof parsed.apiUrl === 'string' && { apiUrl: parsed.apiUrl }) } : undefined;
  } catch {
    return undefined;
  }
}

export function saveCredentials(env: Env, credentials: Credentials): string {
  const file = credentialsPath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

export function removeCredentials(env: Env): boolean {
  const file = credentialsPath(env);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
