import { apiUrlOf, CREDENTIALS_IGNORED } from '../../config/api-url.js';
import { loadConfig } from '../../config/config.js';
import { removeCredentials, saveCredentials } from '../../config/credentials.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import type { CommandContext } from '../context.js';
import { escapeControls } from '../../ui/terminal-text.js';
import { version } from '../version.js';

async function keyFrom(context: CommandContext): Promise<string> {
  const { io, globals } = context;
  if (globals.apiKey) return globals.apiKey;
  if (!io.stdinIsTTY) return (await io.readStdin()).trim();
  return (await io.prompt('API key (not shown): ', { secret: true })).trim();
}

export async function runLogin(context: CommandContext): Promise<ExitCode> {
  const { io, globals, output } = context;
  const config = await loadConfig(io.env, io.cwd());
  const given = globals.apiUrl ?? (io.env.WEBWATCH_API_URL || undefined) ?? config.apiUrl;
  const address = given === undefined ? undefined : apiUrlOf(given);
  if (address?.hadCredentials) output.info(CREDENTIALS_IGNORED);
  // Saved and shown without a user name or password: they are never sent.
  const apiUrl = address?.url;
  const apiKey = await keyFrom(context);
  if (!apiKey) throw new UsageError('no API key given', { suggestion: 'pass --api-key, pipe the key on standard input, or type it at the prompt' });
  if (apiUrl) {
    // A key the API refuses is not worth saving: 401 ends here with exit 3.
    const { remoteBackend } = await import('../../backend/remote/remote-backend.js');
    const backend = remoteBackend({
      baseUrl: apiUrl,
      apiKey,
      version: version(),
      ...(globals.verbose && { log: (line: string) => io.stderr.write(`${escapeControls(line)}\n`) }),
    });
    try {
      await backend.monitors.list();
    } finally {
      await backend.close();
    }
  }
  const file = saveCredentials(io.env, { apiKey, ...(apiUrl && { apiUrl }) });
  if (output.json) output.jsonDocument({ saved: true, file, ...(apiUrl && { apiUrl }) });
  else output.info(`saved the API key${apiUrl ? ` for ${apiUrl}` : ''} in ${file}`);
  return EXIT.ok;
}

export async function runLogout(context: CommandContext): Promise<ExitCode> {
  const removed = removeCredentials(context.io.env);
  if (context.output.json) context.output.jsonDocument({ removed });
  else context.output.info(removed ? 'the saved API key is gone' : 'no saved API key');
  return EXIT.ok;
}
