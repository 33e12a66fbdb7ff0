/**
 * Interact under serve: `POST` and `DELETE /v2/scrape/{scrapeId}/interact` on the team's
 * sessions, kept open in this process's browser (engine/interact/sessions.ts), and the live view
 * of a session's page: a signed link (the media links' HMAC, media-links.ts) to a page of this
 * server that shows the session's page as it changes, a frame at a time, and, from the
 * interactive link only, sends it clicks and keys. Neither link reaches the browser itself (no
 * debugging port is open); each names one session of one team, and stops working when its
 * session closes or its hour is up.
 *
 * A session opens at the page the scrape landed on (its stored document's `metadata.url`, kept
 * for a day) with the scrape's profile and device, which this process remembers of the scrapes
 * it answered (a scrape answered by another process opens without them).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { InteractOrigin } from '../contract/interact.js';
import type { CodePolicy } from '../engine/interact/interact.js';
import type { InteractSessions } from '../engine/interact/sessions.js';
import { scrapeDocumentStore } from '../engine/store/scrape-documents.js';
import type { Db } from '../engine/store/database.js';
import { WebwatchError } from '../errors/webwatch-error.js';
import { sessionOptionsOf } from '../services/interact-scrapes.js';
import type { InteractHost } from '../services/team.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import { asObject, invalid } from './http.js';
import { validateInteractRequest } from '../spec/interact.js';
import type { MediaLinks } from './media-links.js';
import type { RouteDeps } from './routes/deps.js';

/** How long a live-view link works: a session's longest life. */
export const LIVE_VIEW_LIFETIME_MS = 60 * 60_000;
/** A frame is taken at most this often per session, however many viewers ask. */
const FRAME_INTERVAL_MS = 250;
/** Scrapes whose profile and device this process remembers, the newest. */
const ORIGINS_KEPT = 10_000;

export interface InteractServing {
  /** The team's host of interact for its services. */
  host(team: string): InteractHost;
  /** Remembers what a scrape this process answered was opened with. */
  remember(team: string, scrapeId: string, options: ScrapeOptions): void;
}

export function interactServing(db: Db, now: () => Date, sessions: InteractSessions, policy: CodePolicy): InteractServing {
  const documents = scrapeDocumentStore(db);
  const remembered = new Map<string, Pick<InteractOrigin, 'profile' | 'mobile'>>();
  return {
    remember(team, scrapeId, options) {
      const opened = sessionOptionsOf(options);
      if (Object.keys(opened).length === 0) return;
      remembered.set(`${team}\n${scrapeId}`, opened);
      if (remembered.size > ORIGINS_KEPT) remembered.delete(remembered.keys().next().value!);
    },
    host: (team) => ({
      policy,
      sessions,
      async origin(scrapeId) {
        const text = await documents.find(team, scrapeId, now());
        if (text === undefined) return undefined;
        const { metadata } = JSON.parse(text) as { metadata?: { url?: string; sourceURL?: string } };
        const url = metadata?.url ?? metadata?.sourceURL;
        return url ? { url, ...remembered.get(`${team}\n${scrapeId}`) } : undefined;
      },
    }),
  };
}

const viewName = (scrapeId: string, control: boolean) => `interact/${scrapeId}/${control ? 'control' : 'view'}`;

/** The live-view links of a session, for the request's origin. */
function liveLinks(request: FastifyRequest, links: MediaLinks, scrapeId: string, at: number) {
  const origin = `${request.protocol}://${request.host}`;
  const link = (control: boolean) =>
    `${origin}/v2/media/interact/${encodeURIComponent(scrapeId)}/live?${links.query(request.team, viewName(scrapeId, control), at + LIVE_VIEW_LIFETIME_MS)}${control ? '&control=1' : ''}`;
  return { liveViewUrl: link(false), interactiveLiveViewUrl: link(true) };
}

/** The live view's page: the frame, refreshed; with control, clicks and keys sent on. No script of the watched page runs here. */
const LIVE_PAGE = (frame: string, input: string | undefined) => `<!doctype html>
<meta charset="utf-8"><title>webwatch live view</title>
<style>body{margin:0;background:#222;color:#ddd;font:14px system-ui}img{display:block;max-width:100%;cursor:${input ? 'crosshair' : 'default'}}p{margin:8px}</style>
<p>Live view${input ? ' (interactive: clicks and keys go to the page)' : ''}</p><img id="frame" alt="the session's page">
<script>
const img = document.getElementById('frame');
const frame = ${JSON.stringify(frame)};
let stopped = false;
async function next() {
  const response = await fetch(frame + '&t=' + Date.now()).catch(() => undefined);
  if (!response || !response.ok) { stopped = true; document.querySelector('p').textContent = 'The session has ended.'; return; }
  const url = URL.createObjectURL(await response.blob());
  img.onload = () => URL.revokeObjectURL(url);
  img.src = url;
  setTimeout(next, 400);
}
next();
${
  input
    ? `const input = ${JSON.stringify(input)};
const send = (body) => fetch(input, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
img.addEventListener('click', (event) => {
  const box = img.getBoundingClientRect();
  send({ type: 'click', x: (event.clientX - box.left) * img.naturalWidth / box.width, y: (event.clientY - box.top) * img.naturalHeight / box.height });
});
document.addEventListener('keydown', (event) => { if (!stopped) { event.preventDefault(); send({ type: 'key', key: event.key }); } });`
    : ''
}
</script>`;

const KEYS = /^(?:[\x20-\x7e]|Enter|Tab|Backspace|Delete|Escape|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|Home|End|PageUp|PageDown|Space)$/;

export function interactRoutes(app: FastifyInstance, deps: RouteDeps, sessions: InteractSessions): void {
  const links = deps.mediaLinks!;
  const forbidden = () => new WebwatchError('Forbidden', { status: 403, details: { reason: 'this live-view link is not valid, or has expired' } });

  app.post<{ Params: { id: string } }>('/v2/scrape/:id/interact', async (request, reply) => {
    const validation = validateInteractRequest(asObject(request.body));
    if (!validation.ok) throw invalid(validation.problems);
    // A team that has used its month's credits opens no session and runs nothing more.
    if (await app.limits.outOfCredits(request, reply)) return reply;
    const { origin: _, integration: __, ...call } = validation.value;
    const answer = await deps.servicesOf(request).interact.run(request.params.id, call);
    return { ...answer, ...liveLinks(request, links, request.params.id, deps.now().getTime()) };
  });

  app.delete<{ Params: { id: string } }>('/v2/scrape/:id/interact', async (request) => deps.servicesOf(request).interact.stop(request.params.id));

  type Signed = { Params: { id: string }; Querystring: Record<string, string | undefined> };
  /** The session a signed link names, if the link is valid and the session open. */
  const sessionOf = (request: FastifyRequest<Signed>, control: boolean) => {
    const { id } = request.params;
    if (!links.valid(viewName(id, control), request.query, deps.now().getTime())) throw forbidden();
    const session = sessions.get(request.query.team!, id);
    if (!session) throw new WebwatchError('Gone', { status: 410, code: 'INTERACT_SESSION_CLOSED', details: { reason: 'the session has ended' } });
    return session;
  };
  const signedQuery = (request: FastifyRequest<Signed>) =>
    `team=${encodeURIComponent(request.query.team ?? '')}&expires=${request.query.expires ?? ''}&signature=${request.query.signature ?? ''}`;

  app.get<Signed>('/v2/media/interact/:id/live', async (request, reply) => {
    const control = request.query.control === '1';
    sessionOf(request, control);
    const base = `/v2/media/interact/${encodeURIComponent(request.params.id)}`;
    const query = `${signedQuery(request)}${control ? '&control=1' : ''}`;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; img-src blob:; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
      .send(LIVE_PAGE(`${base}/frame?${query}`, control ? `${base}/input?${query}` : undefined));
  });

  const frames = new Map<string, { at: number; image: Promise<Buffer> }>();
  app.get<Signed>('/v2/media/interact/:id/frame', async (request, reply) => {
    const session = sessionOf(request, request.query.control === '1');
    const key = `${session.team}\n${session.scrapeId}`;
    let frame = frames.get(key);
    if (!frame || Date.now() - frame.at > FRAME_INTERVAL_MS) {
      frame = { at: Date.now(), image: session.live.page.screenshot({ type: 'jpeg', quality: 60, timeout: 5000 }) };
      frames.set(key, frame);
      if (frames.size > 64) frames.delete(frames.keys().next().value!);
    }
    return reply
      .type('image/jpeg')
      .header('cache-control', 'no-store')
      .send(await frame.image);
  });

  app.post<Signed>('/v2/media/interact/:id/input', async (request) => {
    const session = sessionOf(request, true);
    const input = asObject(request.body);
    const { page } = session.live;
    if (input.type === 'click' && typeof input.x === 'number' && typeof input.y === 'number' && Number.isFinite(input.x) && Number.isFinite(input.y)) {
      await page.mouse.click(input.x, input.y);
    } else if (input.type === 'key' && typeof input.key === 'string' && KEYS.test(input.key)) {
      await page.keyboard.press(input.key === ' ' ? 'Space' : input.key);
    } else {
      throw new WebwatchError('Bad Request', { status: 400, details: [{ path: 'type', message: 'a click {x, y} or a key {key}' }] });
    }
    return { success: true };
  });
}
