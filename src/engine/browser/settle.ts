/**
 * The wait before a rendered page is read ("smart wait", spec §2.7 `waitFor`): until no request
 * of the page is in flight for NETWORK_QUIET_MS and its DOM has not changed for DOM_QUIET_MS, or
 * until the cap. A page drawn by a script after `load` (a timer, a fetch) is read once drawn; a
 * page that never settles (a ticker, a poll) is read at the cap, with a warning.
 */
import type { Page } from 'playwright-core';

/** Network quiet: the window Playwright's `networkidle` uses; a fetch that starts a draw comes well within it. */
export const NETWORK_QUIET_MS = 500;
/** DOM quiet: longer than the short timers and animation steps a script draws with, shorter than the network window so a static page pays no more than that. */
export const DOM_QUIET_MS = 400;
/** The longest any page is waited for: past this, a page still changing is a ticker, not a page still drawing. */
export const SETTLE_CAP_MS = 10_000;
/** Left of the render's time limit for reading the page and whatever follows (screenshot, actions, conversion). */
export const SETTLE_RESERVE_MS = 1_000;
/**
 * Requests that never end by design (event streams, beacons) or that feed no text (audio and
 * video): a page holding one open would otherwise wait the whole cap, and carry a warning, for
 * nothing. What the page fetches to draw (documents, scripts, fetch and XHR) is still waited for.
 */
const NEVER_QUIET = new Set(['eventsource', 'websocket', 'ping', 'media']);
/** How often the page is looked at while waiting. */
const POLL_MS = 50;

/** Where the page keeps the time of its last DOM change (performance.now()); a name no page uses. */
const MARK = '__webwatchLastMutation';
const OBSERVE = `(() => {
  if (window.${MARK} !== undefined) return;
  Object.defineProperty(window, '${MARK}', { value: { at: performance.now() }, enumerable: false });
  new MutationObserver(() => { window.${MARK}.at = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;
const SINCE_MUTATION = `(() => { const m = window.${MARK}; return m ? performance.now() - m.at : -1; })()`;

export interface SettleWatch {
  /** Starts watching the DOM (once the page has loaded). */
  observe(): Promise<void>;
  /** Waits until the page settles or `capMs` passes; the warning when it did not settle. */
  settle(capMs: number): Promise<string | undefined>;
  stop(): void;
}

/** Starts watching the page's requests now (before navigation) so that none is missed. */
export function watchPage(page: Page): SettleWatch {
  const inFlight = new Set<unknown>();
  let lastNetwork = Date.now();
  const started = (request: { resourceType(): string }) => {
    if (NEVER_QUIET.has(request.resourceType())) return;
    inFlight.add(request);
    lastNetwork = Date.now();
  };
  const ended = (request: unknown) => {
    if (!inFlight.delete(request)) return;
    lastNetwork = Date.now();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  const stop = () => {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  };
  return {
    stop,
    async observe() {
      await page.evaluate(OBSERVE).catch(() => undefined);
    },
    async settle(capMs) {
      const begun = Date.now();
      const until = begun + Math.max(0, capMs);
      for (;;) {
        // Installed again after a navigation by the page's script (a new document has no observer).
        const sinceMutation = (await page.evaluate(`${OBSERVE}, ${SINCE_MUTATION}`).catch(() => 0)) as number;
        const networkQuiet = inFlight.size === 0 && Date.now() - lastNetwork >= NETWORK_QUIET_MS;
        if (networkQuiet && sinceMutation >= DOM_QUIET_MS) return undefined;
        if (Date.now() >= until) break;
        await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, until - Date.now()))));
      }
      const busy = inFlight.size > 0 || Date.now() - lastNetwork < NETWORK_QUIET_MS ? 'requests' : 'DOM changes';
      return `the page did not settle within ${Math.max(0, capMs)} ms (${busy} still going on); it was read as it was then`;
    },
  };
}

/** How long the settle wait may take: the cap, or what is left of the render's time less the reserve. */
export function settleCap(deadline: number, now = Date.now()): number {
  return Math.max(0, Math.min(SETTLE_CAP_MS, deadline - now - SETTLE_RESERVE_MS));
}
