/**
 * One interact call on a team's session: the page opened as the scrape's context opens pages
 * (its request check, proxies, profile), then a prompt on the model or a program next to the
 * browser. The sessions themselves (sessions.ts) and where a scrape was (the caller's) are given.
 */
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { INTERACT_TIMEOUT_DEFAULT_S, INTERACT_TIMEOUT_MAX_S, INTERACT_TIMEOUT_MIN_S } from '../../spec/interact.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import type { LivePage } from '../browser/render.js';
import { requestHeaders } from '../fetch/request-headers.js';
import type { LlmSettings } from '../llm/chat.js';
import type { ScrapeContext } from '../scrape/scrape.js';
import { pythonAvailable, type CodeResult } from './run-code.js';

/** What a call asks: the hosted API's body (its `timeout` in seconds). */
export interface InteractCall {
  prompt?: string;
  code?: string;
  language?: 'node' | 'python' | 'bash';
  timeout?: number;
}

/** How code may run here: the command line's own (the user's program), sandboxed (serve, when the operator allows it), or not at all. */
export type CodePolicy = 'plain' | 'sandboxed' | 'refused';

/** The page's own load, when a session opens. */
const OPEN_TIMEOUT_MS = 30_000;

export type InteractOutcome = ({ kind: 'code' } & CodeResult) | { kind: 'prompt'; output: string; modelCalls: number; actions: string[] };

/** Opens the page of a session at `url`, as a scrape with `options` would open it. */
export async function openSessionPage(
  url: string,
  options: ScrapeOptions,
  context: ScrapeContext,
  scrapeId: string,
  storageStatePath?: string,
): Promise<LivePage> {
  const { findChromium } = await import('../browser/chromium.js');
  const executablePath = findChromium(context.browser?.env ?? {}, context.browser?.executablePath, 'interact');
  const { openLivePage } = await import('../browser/render.js');
  return openLivePage({
    url,
    options,
    headers: requestHeaders(options, context.version),
    timeoutMs: OPEN_TIMEOUT_MS,
    executablePath,
    artifactsDir: context.browser?.artifactsDir ?? '.',
    scrapeId,
    ...(context.checkUrl && { checkUrl: context.checkUrl }),
    ...(context.publicAddressesOnly && { publicAddressesOnly: true }),
    ...(context.browser?.profilesDir && { profilesDir: context.browser.profilesDir }),
    ...(storageStatePath && { storageStatePath }),
  });
}

/** The call's timeout in milliseconds, as the hosted API bounds it (1 to 300 seconds). */
export function callTimeoutMs(call: InteractCall): number {
  const seconds = call.timeout ?? INTERACT_TIMEOUT_DEFAULT_S;
  if (!Number.isFinite(seconds) || seconds < INTERACT_TIMEOUT_MIN_S || seconds > INTERACT_TIMEOUT_MAX_S) {
    throw new WebwatchError('Bad Request', {
      status: 400,
      details: [{ path: 'timeout', message: `must be from ${INTERACT_TIMEOUT_MIN_S} to ${INTERACT_TIMEOUT_MAX_S} seconds` }],
    });
  }
  return seconds * 1000;
}

/** Refuses what this call cannot run here, before a session is opened for it. */
export function refusalOf(call: InteractCall, policy: CodePolicy, llm: LlmSettings | undefined): WebwatchError | undefined {
  const hasCode = typeof call.code === 'string' && call.code.trim() !== '';
  const hasPrompt = typeof call.prompt === 'string' && call.prompt.trim() !== '';
  if (hasCode === hasPrompt) {
    return new WebwatchError('Bad Request', {
      status: 400,
      details: [{ path: hasCode ? 'prompt' : 'code', message: hasCode ? 'give either code or a prompt, not both' : "either 'code' or 'prompt' must be given" }],
    });
  }
  if (hasPrompt && !llm) {
    return new WebwatchError(
      'no model is configured for interact prompts: set llm.baseUrl and llm.model in the config (any OpenAI-compatible server), or send code instead',
      { status: 500, exitCode: EXIT.usage, code: 'AGENT_MODEL_NOT_CONFIGURED', suggestion: 'see "Agent jobs" in docs/agent.md for an example with Ollama' },
    );
  }
  if (hasCode && policy === 'refused') {
    return new WebwatchError('this server does not run interact code: its operator has not turned it on (serve --interact-code)', {
      status: 403,
      code: 'INTERACT_CODE_DISABLED',
      details: { reason: 'code is a program of the caller run on the server; see "interact" in docs/security.md' },
    });
  }
  const language = call.language ?? 'node';
  if (hasCode && (language === 'bash' || (language === 'python' && !pythonAvailable()))) {
    return new WebwatchError(
      `interact code in ${language} is not available here: webwatch runs node programs${pythonAvailable() ? ' and python ones' : " (and python ones where Debian's python3 is installed)"}`,
      { status: 501, code: 'INTERACT_LANGUAGE_NOT_AVAILABLE' },
    );
  }
  return undefined;
}

/** Runs the call in the open page. */
export async function runCall(
  live: LivePage,
  call: InteractCall,
  policy: CodePolicy,
  llm: LlmSettings | undefined,
  signal?: AbortSignal,
): Promise<InteractOutcome> {
  const timeoutMs = callTimeoutMs(call);
  await live.takeRefusal();
  if (call.code?.trim()) {
    const { runCode } = await import('./run-code.js');
    const result = await runCode(live.page, {
      code: call.code,
      language: call.language === 'python' ? 'python' : 'node',
      timeoutMs,
      sandbox: policy === 'sandboxed',
      ...(signal && { signal }),
    });
    const refused = await live.takeRefusal();
    return { kind: 'code', ...result, ...(refused !== undefined && { stderr: `${result.stderr}refused: ${(refused as Error).message ?? String(refused)}\n` }) };
  }
  const { chatModel } = await import('../llm/chat.js');
  const { runPrompt } = await import('./run-prompt.js');
  const model = await chatModel(llm!);
  const result = await runPrompt(live.page, model, { prompt: call.prompt!, deadline: Date.now() + timeoutMs, ...(signal && { signal }) }, () =>
    live.takeRefusal(),
  );
  return { kind: 'prompt', ...result };
}
