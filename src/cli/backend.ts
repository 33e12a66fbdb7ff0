/** The backend a command acts on: a remote v2 API when one is configured, else the local engine. */
import type { Backend } from '../services/interfaces.js';
import { apiUrlOf, CREDENTIALS_IGNORED, type ApiUrl } from '../config/api-url.js';
import { checkServices, loadConfig, type Config } from '../config/config.js';
import { readCredentials } from '../config/credentials.js';
import { EXIT } from '../errors/exit-codes.js';
import { WebwatchError } from '../errors/webwatch-error.js';
import type { CommandContext } from './context.js';
import { escapeControls } from '../ui/terminal-text.js';
import { version } from './version.js';

/**
 * The remote API to use (flags > env > saved login > config), or undefined for the local engine.
 * Its address never carries a user name or password (see apiUrlOf).
 */
/** Where a setting came from, for `auth status`. */
export type SettingSource = '--api-url' | '--api-key' | 'WEBWATCH_API_URL' | 'WEBWATCH_API_KEY' | 'webwatch login' | 'config apiUrl';

export function remoteSettings(
  context: CommandContext,
  config: Config,
): { apiUrl: ApiUrl; apiKey: string | undefined; sources: { apiUrl: SettingSource; apiKey?: SettingSource } } | undefined {
  const { io, globals } = context;
  if (globals.local) return undefined;
  const saved = readCredentials(io.env);
  const first = <T extends string>(...candidates: [T | undefined, SettingSource][]) => {
    const found = candidates.find(([value]) => value !== undefined && value !== '');
    return found && { value: found[0]!, source: found[1] };
  };
  const apiUrl = first(
    [globals.apiUrl, '--api-url'],
    [io.env.WEBWATCH_API_URL, 'WEBWATCH_API_URL'],
    [saved?.apiUrl, 'webwatch login'],
    [config.apiUrl, 'config apiUrl'],
  );
  if (!apiUrl) return undefined;
  const apiKey = first([globals.apiKey, '--api-key'], [io.env.WEBWATCH_API_KEY, 'WEBWATCH_API_KEY'], [saved?.apiKey, 'webwatch login']);
  return { apiUrl: apiUrlOf(apiUrl.value), apiKey: apiKey?.value, sources: { apiUrl: apiUrl.source, ...(apiKey && { apiKey: apiKey.source }) } };
}

export async function openBackend(
  context: CommandContext,
  doing: string,
  options: { quick?: boolean; config?: Config; publicTargetsOnly?: boolean; servesSeveral?: boolean; sandboxedCode?: boolean } = {},
): Promise<Backend> {
  const { io, output, globals } = context;
  const config = options.config ?? (await loadConfig(io.env, io.cwd()));
  const remote = remoteSettings(context, config);
  let backend: Backend;
  if (remote) {
    if (remote.apiUrl.hadCredentials) output.info(CREDENTIALS_IGNORED);
    if (!remote.apiKey) {
      throw new WebwatchError(`no API key for ${remote.apiUrl.url}`, {
        exitCode: EXIT.auth,
        suggestion: 'give --api-key, set WEBWATCH_API_KEY, or run webwatch login',
      });
    }
    const { remoteBackend } = await import('../backend/remote/remote-backend.js');
    backend = remoteBackend({
      baseUrl: remote.apiUrl.url,
      apiKey: remote.apiKey,
      version: version(),
      // Completion waits for nobody: one attempt, short timeouts.
      ...(options.quick && { maxAttempts: 1, connectTimeoutMs: 1000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000 }),
      ...(globals.verbose && { log: (line: string) => io.stderr.write(`${escapeControls(line)}\n`) }),
      // Without --verbose a person still sees why nothing happens for a while (quiet drops it).
      ...(!globals.verbose && { onRetry: (line: string) => output.info(line) }),
    });
  } else {
    const { webhookSecret, smtp, llm, search, onlyMeaningfulChanges, browser, proxies } = checkServices(config, io.env);
    // Loaded here, like the remote one: commands that never reach a backend (validate) skip it.
    const { DELIVERY_WAIT_DEFAULT_SECONDS, localBackend } = await import('../backend/local/local-backend.js');
    backend = localBackend({
      version: version(),
      env: io.env,
      now: io.now,
      threatPolicy: config.threatPolicy,
      notifications: {
        ...(webhookSecret && { secret: webhookSecret }),
        ...(smtp && { smtp }),
        waitSeconds: config.deliveryWaitSeconds ?? DELIVERY_WAIT_DEFAULT_SECONDS,
        ...(onlyMeaningfulChanges && { onlyMeaningful: true }),
      },
      ...(llm && { llm }),
      ...(search && { search }),
      ...(browser && { browser }),
      ...(proxies && { proxies }),
      // serve's private-network rule, for a server whose clients are not the machine's user.
      ...(options.publicTargetsOnly && { publicTargetsOnly: true }),
      // One client's large page holds up no other's answers; a one-off command converts on its own thread.
      ...(options.servesSeveral && { convertOffLoop: true }),
      // Interact code a model wrote (MCP) runs in bubblewrap, as serve runs its callers'.
      ...(options.sandboxedCode && { sandboxedCode: true }),
      closesBrowser: true,
    });
  }
  output.notice(`${doing} with ${backend.description}`);
  return backend;
}

/** Runs `work` with a backend and closes it whatever happens. */
export async function withBackend<T>(context: CommandContext, doing: string, work: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await openBackend(context, doing);
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}
