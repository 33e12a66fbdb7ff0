import { loadConfig } from '../../config/config.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { databasePath } from '../../services/database.js';
import { asWebwatchError } from '../../ui/render-error.js';
import { escapeControls } from '../../ui/terminal-text.js';
import { remoteSettings } from '../backend.js';
import type { CommandContext } from '../context.js';
import { version } from '../version.js';

/** Enough of a key to tell two apart, never enough to use: its first 3 and last 4 characters. */
export function redactKey(key: string): string {
  return key.length >= 16 ? `${key.slice(0, 3)}…${key.slice(-4)}` : '…';
}

export async function runAuthStatus(context: CommandContext): Promise<ExitCode> {
  const { io, output } = context;
  const config = await loadConfig(io.env, io.cwd());
  const remote = remoteSettings(context, config);
  if (!remote) {
    const status = { engine: 'local', database: databasePath(io.env), keyNeeded: false };
    if (output.json) output.jsonDocument(status);
    else output.data(`engine:   the embedded engine (no server, no key)\ndatabase: ${status.database}`);
    return EXIT.ok;
  }
  const key = remote.apiKey === undefined ? null : { shown: redactKey(remote.apiKey), from: remote.sources.apiKey };
  let works: { ok: true } | { ok: false; error: string; exitCode: ExitCode } = {
    ok: false,
    error: 'no API key: give --api-key, set WEBWATCH_API_KEY, or run webwatch login',
    exitCode: EXIT.auth,
  };
  if (remote.apiKey !== undefined) {
    const { ApiClient } = await import('../../backend/remote/api-client.js');
    // One attempt and a short wait: a status answers quickly, it does not ride out an outage.
    const client = new ApiClient({
      baseUrl: remote.apiUrl.url,
      apiKey: remote.apiKey,
      version: version(),
      connectTimeoutMs: 5000,
      headersTimeoutMs: 10_000,
      maxAttempts: 1,
    });
    try {
      await client.request('GET', '/monitor', { query: { limit: 1 } });
      works = { ok: true };
    } catch (error) {
      const failure = asWebwatchError(error);
      works = { ok: false, error: failure.message, exitCode: failure.exitCode };
    } finally {
      await client.close();
    }
  }
  const status = {
    engine: 'remote',
    apiUrl: remote.apiUrl.url,
    apiUrlFrom: remote.sources.apiUrl,
    key: key?.shown ?? null,
    keyFrom: key?.from ?? null,
    works: works.ok,
    ...(!works.ok && { error: works.error }),
  };
  if (output.json) output.jsonDocument(status);
  else {
    output.data(
      [
        `engine:   the API at ${remote.apiUrl.url} (from ${remote.sources.apiUrl})`,
        `key:      ${key ? `${key.shown} (from ${key.from})` : 'none'}`,
        `works:    ${works.ok ? 'yes: the API accepts the key' : `no: ${escapeControls(works.error)}`}`,
      ].join('\n'),
    );
  }
  return works.ok ? EXIT.ok : works.exitCode;
}
