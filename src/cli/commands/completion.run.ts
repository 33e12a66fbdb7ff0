/**
 * `webwatch __complete monitors|checks <monitor>`: candidates for the completion scripts, one per
 * line as `value<TAB>description`. Quick and silent: one attempt at a remote API with short
 * timeouts, no engine database created where there is none, nothing printed on failure.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/config.js';
import { databasePath } from '../../services/database.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { openBackend, remoteSettings } from '../backend.js';
import type { CommandContext } from '../context.js';

const MAX_CHECKS = 20;
/** A tab or newline inside a name would break the line format: shown as a space. */
const field = (text: string) => text.replace(/[\t\r\n]/g, ' ');

export async function runComplete(context: CommandContext, what: string, monitor: string | undefined): Promise<ExitCode> {
  const { io } = context;
  const config = await loadConfig(io.env, io.cwd());
  if (!remoteSettings(context, config) && !existsSync(databasePath(io.env))) return EXIT.ok;
  const backend = await openBackend(context, 'completing', { quick: true, config });
  try {
    const lines: string[] = [];
    if (what === 'monitors') {
      for (const m of await backend.monitors.list()) lines.push(`${field(m.name)}\t${m.status}`);
    } else if (what === 'checks' && monitor) {
      const checks = await backend.checks.list(monitor);
      if (checks.length > 0) lines.push('latest\tthe newest check');
      for (const c of checks.slice(0, MAX_CHECKS)) lines.push(`${c.id}\t${c.status}${c.startedAt ? ` ${c.startedAt}` : ''}`);
    } else {
      return EXIT.usage;
    }
    if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  } catch {
    // A completion that cannot list offers nothing; the command itself will say why.
    return EXIT.ok;
  } finally {
    await backend.close();
  }
}
