/**
 * Interact, one team's: prompts and code in the page a scrape opened (engine/interact). Under
 * serve a session stays open in the process's browser between calls, until it is stopped, idle
 * or the server drains. The command line's engine lives for one command, so a session there is
 * its page's state kept between commands: each call opens the page where the last one left it,
 * with its cookies and storage, and saves them when it ends; `stop` forgets them.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InteractAnswer, InteractOrigin, InteractRequest, InteractStopped } from '../contract/interact.js';
import type { InteractOutcome } from '../engine/interact/interact.js';
import type { SessionEnd } from '../engine/interact/sessions.js';
import { WebwatchError } from '../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import type { InteractService } from './interfaces.js';
import { once, type InteractHost, type Team } from './team.js';

const interactModule = once(() => import('../engine/interact/interact.js'));
const sessionsModule = once(() => import('../engine/interact/sessions.js'));

/** Credits of a prompt's model call, as the agent's. */
const MODEL_CALL_CREDITS = 1;

const noScrape = (scrapeId: string) =>
  new WebwatchError(ERROR_MESSAGES.notFound, {
    status: 404,
    code: 'SCRAPE_NOT_FOUND',
    details: { scrapeId, reason: "no scrape with this id for this key's team: interact needs a scrape of the last 24 hours (none under zeroDataRetention)" },
  });
const noSession = (scrapeId: string) =>
  new WebwatchError(ERROR_MESSAGES.notFound, {
    status: 404,
    code: 'INTERACT_SESSION_NOT_FOUND',
    details: { scrapeId, reason: 'no interact session is open for this scrape' },
  });

function answerOf(outcome: InteractOutcome): InteractAnswer {
  if (outcome.kind === 'prompt') return { success: true, output: outcome.output, ...(outcome.actions.length > 0 && { stdout: outcome.actions.join('\n') }) };
  const { kind: _, error: __, ...code } = outcome;
  return { success: true, ...code };
}

const optionsOf = (origin: InteractOrigin): ScrapeOptions => ({
  ...(origin.profile && { profile: origin.profile }),
  ...(origin.mobile && { mobile: true }),
});

/** The command line's saved session: where its page was, since when, how long it was open. */
interface SavedState {
  url: string;
  options: ScrapeOptions;
  openedAt: number;
  openMs: number;
}

export function interactService(team: Team, host: InteractHost): InteractService {
  const bill = (credits: number) => team.spent('interact', credits).catch(() => undefined);
  const model = () => team.model('interact');

  async function run(scrapeId: string, call: InteractRequest, given?: InteractOrigin): Promise<InteractAnswer> {
    const engine = await interactModule();
    const refused = engine.refusalOf(call, host.policy, model());
    if (refused) throw refused;
    engine.callTimeoutMs(call);
    const context = await team.scrapeContext();
    let outcome: InteractOutcome;
    if (host.sessions) {
      const { sessions } = host;
      const session = await sessions.session(team.name, scrapeId, async () => {
        const origin = given ?? (await host.origin?.(scrapeId));
        if (!origin) throw noScrape(scrapeId);
        const live = await engine.openSessionPage(origin.url, optionsOf(origin), context, scrapeId);
        return { url: origin.url, live, ended: (end: SessionEnd) => void bill(end.creditsBilled) };
      });
      outcome = await sessions.use(session, ({ live }) => engine.runCall(live, call, host.policy, model()));
    } else {
      outcome = await runSaved(scrapeId, call, given, context);
    }
    if (outcome.kind === 'prompt') await bill(outcome.modelCalls * MODEL_CALL_CREDITS);
    return answerOf(outcome);
  }

  const statePaths = (scrapeId: string) => {
    const base = join(host.statesDir!, createHash('sha256').update(scrapeId).digest('hex'));
    return { state: `${base}.json`, storage: `${base}.storage.json` };
  };
  const readState = async (scrapeId: string): Promise<SavedState | undefined> =>
    readFile(statePaths(scrapeId).state, 'utf8').then(
      (text) => JSON.parse(text) as SavedState,
      () => undefined,
    );

  async function runSaved(scrapeId: string, call: InteractRequest, given: InteractOrigin | undefined, context: Awaited<ReturnType<Team['scrapeContext']>>) {
    const engine = await interactModule();
    const paths = statePaths(scrapeId);
    const saved = await readState(scrapeId);
    if (!saved && !given) throw noScrape(scrapeId);
    const state: SavedState = saved ?? { url: given!.url, options: optionsOf(given!), openedAt: Date.now(), openMs: 0 };
    const started = Date.now();
    const live = await engine.openSessionPage(state.url, state.options, context, scrapeId, saved ? paths.storage : undefined);
    let kept = false;
    try {
      const outcome = await engine.runCall(live, call, host.policy, model());
      // Where the page is now and what it holds, for the next call: written whole, then renamed.
      await mkdir(host.statesDir!, { recursive: true, mode: 0o700 });
      await writeFile(`${paths.storage}.partial`, JSON.stringify(await live.storageState()), { mode: 0o600 });
      await rename(`${paths.storage}.partial`, paths.storage);
      const next: SavedState = { ...state, url: live.page.url() || state.url, openMs: state.openMs + (Date.now() - started) };
      await writeFile(`${paths.state}.partial`, JSON.stringify(next), { mode: 0o600 });
      await rename(`${paths.state}.partial`, paths.state);
      kept = true;
      return outcome;
    } finally {
      await live.close(kept);
    }
  }

  return {
    run,
    async stop(scrapeId) {
      const { sessionCredits } = await sessionsModule();
      if (host.sessions) {
        const end = await host.sessions.stop(team.name, scrapeId);
        if (!end) throw noSession(scrapeId);
        return { success: true, status: 'stopped', sessionDurationMs: end.durationMs, creditsBilled: end.creditsBilled } satisfies InteractStopped;
      }
      const saved = await readState(scrapeId);
      if (!saved) throw noSession(scrapeId);
      const paths = statePaths(scrapeId);
      await rm(paths.state, { force: true });
      await rm(paths.storage, { force: true });
      const creditsBilled = sessionCredits(saved.openMs);
      await bill(creditsBilled);
      return { success: true, status: 'stopped', sessionDurationMs: saved.openMs, creditsBilled } satisfies InteractStopped;
    },
  };
}
