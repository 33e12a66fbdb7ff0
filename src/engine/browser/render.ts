/**
 * A page rendered by Chromium (playwright-core, driving the system's Chromium by its path; it
 * never downloads a browser): one shared browser per process, a fresh context per scrape (no
 * cookies cross scrapes or teams), at most MAX_OPEN_PAGES at once, and a new browser after a
 * crash. Every request the page makes, sub-resources included, passes the same URL check as a
 * plain fetch (serve's private-address rule, threat protection) before it is sent; the page's
 * redirects, which Chromium follows without asking, as they are sent. Under serve's rule every
 * connection goes through a proxy that resolves each name once (public-proxy.ts), which also
 * leads to the operator's proxy (`proxy.basic`, `proxy.enhanced`) when one is used. Ads, trackers
 * and cookie banners are blocked unless `blockAds` is false; `profile` keeps storage between
 * scrapes; `location` sets the page's languages and time zone.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page, Request as PlaywrightRequest } from 'playwright-core';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { Action, ScrapeOptions } from '../../spec/scrape-options.js';
import type { FetchedPage } from '../fetch/fetch-page.js';
import { PROXY_FAILURE_HEADER, shownProxy, withoutSecrets, type ProxyLevel } from '../fetch/proxy.js';
import { pageLanguages } from '../fetch/request-headers.js';
import { openProfile, PROFILE_WAIT_MS, type ProfileSession } from './profiles.js';
import { browserClosed, browserOpened, closeBrowserIfOpen } from './lifetime.js';
import { settleCap, watchPage, type SettleWatch } from './settle.js';
import { BRANDING_PROBE, wantsBranding, type BrandingSample } from './branding-probe.js';

export const MAX_OPEN_PAGES = 4;
const DESKTOP_VIEWPORT = { width: 1280, height: 800 };
const MOBILE_VIEWPORT = { width: 412, height: 915 };

export type { ActionResults } from '../../contract/scrape.js';
import type { ActionResults } from '../../contract/scrape.js';

export interface RenderRequest {
  url: string;
  options: ScrapeOptions;
  headers: Record<string, string>;
  timeoutMs: number;
  executablePath: string;
  /** Where screenshots and PDFs are written (a directory of the engine's home, per team). */
  artifactsDir: string;
  scrapeId: string;
  checkUrl?: (url: URL) => void | Promise<void>;
  /** Connections only to public addresses, each name resolved once (serve's rule). */
  publicAddressesOnly?: boolean;
  /** The operator's proxy every connection of the page goes through (its level names it in errors). */
  proxy?: { url: string; level: ProxyLevel };
  /** Where `profile` storage is kept (a directory of the engine's home, per team). */
  profilesDir?: string;
  signal?: AbortSignal;
  /** A refused navigation of the page leaves it where it was (an interact session's), instead of failing it. */
  staysOnRefusal?: boolean;
}

export interface Rendered {
  page: FetchedPage;
  screenshot?: string;
  actions?: ActionResults;
  /** The page's computed styles, fonts and logo candidates, when the branding format is asked for. */
  branding?: BrandingSample;
  /** The page did not settle before it was read (settle.ts). */
  warning?: string;
}

let shared: { path: string; browser: Promise<Browser> } | undefined;
let open = 0;
const waiting: (() => void)[] = [];

async function browserAt(executablePath: string): Promise<Browser> {
  if (shared && shared.path === executablePath) {
    const browser = await shared.browser.catch(() => undefined);
    if (browser?.isConnected()) return browser;
  }
  // Set before any await: concurrent first scrapes share one launch rather than each starting a browser.
  const launching = import('playwright-core').then(({ chromium }) =>
    chromium.launch({
      executablePath,
      // Root (containers, CI) cannot use Chromium's sandbox; the page's requests are checked here instead.
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    }),
  );
  shared = { path: executablePath, browser: launching };
  const browser = await launching.catch((error: Error) => {
    shared = undefined;
    throw new WebwatchError(`cannot start the browser ${executablePath}: ${error.message.split('\n')[0]}`, {
      code: 'BROWSER_FAILED',
      exitCode: EXIT.browserMissing,
    });
  });
  // A crashed or killed browser is replaced by the next scrape, never waited on.
  browser.on('disconnected', () => {
    if (shared?.browser === launching) shared = undefined;
  });
  browserOpened(async () => {
    shared = undefined;
    browserClosed();
    await browser.close().catch(() => undefined);
  });
  return browser;
}

/**
 * An idle browser closes itself after this long: a long-running server does not keep its memory,
 * and a process that never closed it (a library caller) can still exit.
 */
export const BROWSER_IDLE_MS = 10_000;
let idleTimer: NodeJS.Timeout | undefined;

/** Pages kept open for interact sessions (openLivePage): they keep the browser, and take no scrape's slot. */
let livePages = 0;

/** The browser closes once no page of a scrape or a session has been open for BROWSER_IDLE_MS. */
function closeWhenIdle(): void {
  if (open > 0 || livePages > 0) return;
  // Unref'd: Chromium's pipes keep the process alive until it fires; nothing else waits for it.
  idleTimer = setTimeout(() => {
    if (open === 0 && livePages === 0) void closeBrowserIfOpen();
  }, BROWSER_IDLE_MS).unref();
}

async function slot(): Promise<() => void> {
  if (open >= MAX_OPEN_PAGES) await new Promise<void>((resolve) => waiting.push(resolve));
  open++;
  clearTimeout(idleTimer);
  return () => {
    open--;
    waiting.shift()?.();
    closeWhenIdle();
  };
}

/**
 * A page loaded as a scrape loads it, and kept open for an interact session: the same context
 * (the request check on every request and redirect, serve's proxy, the profile's storage, ads
 * blocked), but no deadline after the load and no slot of the scrapes'. The caller closes it.
 */
export interface LivePage {
  page: Page;
  /**
   * The first navigation refused since the last call (a goto, a click that led away), once its
   * checks have ended; then forgotten, and the page back where it was before it.
   */
  takeRefusal(): Promise<unknown>;
  /** The context's cookies and storage, as Playwright's storageState gives them. */
  storageState(): Promise<unknown>;
  /** Closes the page and its context; with `save`, writes the profile's state back first. */
  close(save: boolean): Promise<void>;
}

export async function openLivePage(request: RenderRequest & { storageStatePath?: string }): Promise<LivePage> {
  request = { ...request, staysOnRefusal: true };
  const { profile: wanted } = request.options;
  if (wanted && !request.profilesDir)
    throw new WebwatchError(`profile "${wanted.name}" needs the engine's profile storage, which this session was not given`, {
      status: 400,
      code: 'UNSUPPORTED_BY_LOCAL_ENGINE',
    });
  const profile = wanted && (await openProfile(request.profilesDir!, wanted, Math.min(PROFILE_WAIT_MS, request.timeoutMs), request.signal));
  livePages++;
  clearTimeout(idleTimer);
  let context: BrowserContext | undefined;
  const ended = async () => {
    await context?.close().catch(() => undefined);
    await profile?.release();
    livePages--;
    closeWhenIdle();
  };
  try {
    const browser = await browserAt(request.executablePath);
    const state = request.storageStatePath ?? profile?.state;
    const created = await newContext(browser, request, state ? { state, save: async () => {}, release: async () => {} } : undefined);
    context = created.context;
    const page = await context.newPage();
    const response = await page.goto(request.url, { waitUntil: 'load', timeout: request.timeoutMs }).catch(async (error: Error) => {
      throw (await created.guard.refusal()) ?? created.guard.refusedByProxy() ?? error;
    });
    const refusal = await created.guard.refusal();
    if (refusal) throw refusal;
    if (response?.status() === 403 && created.guard.refusedByProxy()) throw created.guard.refusedByProxy();
    const opened = context;
    // Where the page last was that no rule refused: a refused navigation goes back to it.
    let lastGood = page.url();
    return {
      page,
      async takeRefusal() {
        const refused = (await created.guard.refusal()) ?? created.guard.refusedByProxy();
        created.guard.forget();
        if (!refused) {
          if (!page.url().startsWith('chrome-error:')) lastGood = page.url();
          return undefined;
        }
        // The refused navigation may still be ending (Chromium commits its error page after the
        // request is aborted): once it has, the page goes back to where it was.
        await page.waitForLoadState('load', { timeout: 5000 }).catch(() => undefined);
        if (page.url() !== lastGood) {
          await page.goto(lastGood, { waitUntil: 'load', timeout: request.timeoutMs }).catch(() => undefined);
          created.guard.forget();
        }
        return refused;
      },
      storageState: () => opened.storageState({ indexedDB: true }),
      async close(save) {
        if (save) await profile?.save(() => opened.storageState({ indexedDB: true })).catch(() => undefined);
        await ended();
      },
    };
  } catch (error) {
    await ended();
    if (error instanceof WebwatchError) throw error;
    const message = withoutSecrets((error as Error).message?.split('\n')[0] ?? String(error), [request.proxy?.url]);
    throw new WebwatchError(`the browser could not open ${request.url}: ${message}`, { status: 502, code: 'SCRAPE_BROWSER_ERROR' });
  }
}

export async function renderPage(request: RenderRequest): Promise<Rendered> {
  // The profile first: a scrape waiting for another one's profile holds no page of the browser.
  const { profile: wanted } = request.options;
  // Never a directory by default: without the team's, a profile is refused, not written elsewhere.
  if (wanted && !request.profilesDir)
    throw new WebwatchError(`profile "${wanted.name}" needs the engine's profile storage, which this scrape was not given`, {
      status: 400,
      code: 'UNSUPPORTED_BY_LOCAL_ENGINE',
    });
  const startedAt = Date.now();
  const profile = wanted && (await openProfile(request.profilesDir!, wanted, Math.min(PROFILE_WAIT_MS, request.timeoutMs), request.signal));
  let release: (() => void) | undefined;
  let context: BrowserContext | undefined;
  let browser: Browser | undefined;
  try {
    release = await slot();
    browser = await browserAt(request.executablePath);
    const created = await newContext(browser, request, profile);
    context = created.context;
    const session = render(created.context, created.guard, request, startedAt + request.timeoutMs).then(async (rendered) => {
      // Only a session that finished saves what it changed.
      await profile?.save(() => created.context.storageState({ indexedDB: true }));
      return rendered;
    });
    // The timeout covers the whole session: load, waits and actions.
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new WebwatchError(`the browser did not finish ${request.url} within ${request.timeoutMs} ms`, { status: 408, code: 'SCRAPE_TIMEOUT' })),
        request.timeoutMs,
      );
    });
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new WebwatchError('the scrape was cancelled', { code: 'SCRAPE_CANCELLED' }));
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([session, expired, aborted]);
    } finally {
      clearTimeout(timer);
      // A crawl's one signal serves every page: each page's listener goes with it.
      request.signal?.removeEventListener('abort', onAbort!);
    }
  } catch (error) {
    if (error instanceof WebwatchError) throw error;
    const message = withoutSecrets((error as Error).message?.split('\n')[0] ?? String(error), [request.proxy?.url]);
    // A browser that died mid-scrape fails this page only; the next one starts a new browser.
    if (browser && (await goneSoon(browser))) {
      throw new WebwatchError(`the browser stopped while rendering ${request.url}`, { status: 502, code: 'BROWSER_CRASHED' });
    }
    // The tunnel to the operator's proxy failed: the proxy was not reached, or it refused, and
    // the in-process proxy that asked it remembers what it answered.
    if (request.proxy && /ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED/.test(message)) {
      const { tunnelFailureOf } = await import('./public-proxy.js');
      throw proxyFailure(request, tunnelFailureOf(request.proxy.url, new URL(request.url).hostname, startedAt) ?? 'it could not open a tunnel to the page');
    }
    throw new WebwatchError(`the browser could not render ${request.url}: ${message}`, { status: 502, code: 'SCRAPE_BROWSER_ERROR' });
  } finally {
    await context?.close().catch(() => undefined);
    release?.();
    await profile?.release();
  }
}

/** The operator's proxy failed the page, said as the plain fetch says it: its level and address, never its credentials. */
function proxyFailure(request: RenderRequest, reason: string): WebwatchError {
  const proxy = request.proxy!;
  return new WebwatchError(withoutSecrets(`fetching ${request.url} through the ${proxy.level} proxy ${shownProxy(proxy.url)} failed: ${reason}`, [proxy.url]), {
    code: 'SCRAPE_CONNECTION_FAILED',
  });
}

/**
 * Whether the browser has stopped, or stops within a moment: when Chromium dies mid-navigation,
 * the page's error (net::ERR_ABORTED) can come before the browser's disconnect.
 */
function goneSoon(browser: Browser, withinMs = 250): Promise<boolean> {
  if (!browser.isConnected()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const gone = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      browser.off('disconnected', gone);
      resolve(false);
    }, withinMs);
    browser.once('disconnected', gone);
  });
}

/** The languages of `location` (or the country's) that are well-formed locales, for the page's navigator. */
function navigatorLanguages(options: ScrapeOptions): string[] {
  return pageLanguages(options).flatMap((language) => {
    try {
      return Intl.getCanonicalLocales(language);
    } catch {
      return [];
    }
  });
}

async function newContext(
  browser: Browser,
  request: RenderRequest,
  profile: ProfileSession | undefined,
): Promise<{ context: BrowserContext; guard: PageGuard }> {
  const startedAt = Date.now();
  const proxies = request.publicAddressesOnly || request.proxy ? await import('./public-proxy.js') : undefined;
  const proxyServer =
    proxies && (request.proxy ? await proxies.proxyThrough(request.proxy.url, request.publicAddressesOnly ?? false) : await proxies.publicOnlyProxy());
  const { options, headers } = request;
  const { 'user-agent': userAgent, ...extraHTTPHeaders } = headers;
  const viewport = screenshotFormatOf(options)?.viewport ?? (options.mobile ? MOBILE_VIEWPORT : DESKTOP_VIEWPORT);
  const languages = navigatorLanguages(options);
  const acceptLanguage = headers['accept-language'];
  const timezoneId = options.location?.country && (await import('./time-zone.js')).countryTimeZone(options.location.country);
  const blocksAds = options.blockAds ?? true;
  const isAd = blocksAds ? await (await import('./ad-blocking.js')).adBlocker() : undefined;
  const context = await browser.newContext({
    ...(userAgent && { userAgent }),
    extraHTTPHeaders,
    viewport,
    ...(options.mobile && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }),
    ignoreHTTPSErrors: options.skipTlsVerification ?? true,
    ...(languages[0] && { locale: languages[0] }),
    ...(timezoneId && { timezoneId }),
    ...(profile?.state && { storageState: profile.state }),
    // Loopback too: without `<-loopback>` Chromium would connect to localhost names directly.
    ...(proxyServer && { proxy: { server: proxyServer, bypass: '<-loopback>' } }),
    // Downloads and service workers would bypass the request check below.
    acceptDownloads: false,
    serviceWorkers: 'block',
  });
  // navigator.languages lists every language asked for, as a browser set to them would.
  if (languages.length > 1) {
    await context.addInitScript(
      `{ const list = Object.freeze(${JSON.stringify(languages)}); Object.defineProperty(Navigator.prototype, 'languages', { get: () => list, configurable: true }); }`,
    );
  }
  let refused: unknown;
  let pageHost = '';
  let proxySince = startedAt;
  // The page of the scrape is the context's first; a popup it opens is not what is scraped.
  let scrapedPage: Page | undefined;
  context.once('page', (page) => {
    scrapedPage = page;
  });
  /** A request that loads the scraped page itself (its main frame), not a frame, a popup or a sub-resource. */
  const isPageNavigation = (sent: PlaywrightRequest) => sent.isNavigationRequest() && sent.frame() === scrapedPage?.mainFrame();
  const pageChecks: Promise<void>[] = [];
  const checkRequestUrl = async (url: string) => {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new WebwatchError(`the page asked for ${parsed.protocol} URL, which is not fetched`, { status: 403 });
    await request.checkUrl?.(parsed);
  };
  /** A URL the page itself goes to (a navigation or one of its redirects): the first one refused fails the scrape. */
  const checkPageUrl = (url: string) => {
    pageHost = new URL(url).hostname;
    const checked = checkRequestUrl(url);
    pageChecks.push(
      checked.catch((error: unknown) => {
        refused ??= error;
      }),
    );
    return checked;
  };
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (/^(data|blob|about):/.test(url)) return route.continue();
    const frame = route.request().frame();
    const isPage = isPageNavigation(route.request());
    // Ads, trackers and cookie banners go before anything else, unasked: no check, no connection.
    if (isAd && !isPage && isAd(url, route.request().resourceType(), frame.page().url())) return route.abort('blockedbyclient');
    try {
      await (isPage ? checkPageUrl(url) : checkRequestUrl(url));
      // `locale` makes Chromium send that one language: every request asks in all of them, as the plain fetch does.
      const sent = route.request().headers();
      if (acceptLanguage && sent['accept-language'] !== undefined && sent['accept-language'] !== acceptLanguage) {
        return await route.continue({ headers: { ...sent, 'accept-language': acceptLanguage } });
      }
      return await route.continue();
    } catch {
      // A refused sub-resource is only left out; a refused page was recorded by checkPageUrl.
      // In a session the page stays where it was: a navigation answered 204 No Content goes
      // nowhere, where an aborted one would leave Chromium's error page, some time later.
      if (isPage && request.staysOnRefusal) return route.fulfill({ status: 204, body: '' }).catch(() => undefined);
      return route.abort('blockedbyclient');
    }
  });
  // Playwright sends a redirect on without asking the route above, so the page's redirects are
  // checked as they are sent: under serve's rule the proxy refuses the connection itself, and
  // the scrape fails as the plain fetch's check of the redirect would fail it.
  context.on('request', (sent) => {
    if (sent.redirectedFrom() && isPageNavigation(sent)) void checkPageUrl(sent.url());
  });
  return {
    context,
    guard: {
      async refusal() {
        await Promise.all(pageChecks);
        return refused;
      },
      // The page refused by the proxy at connect time (a name that resolved to a private address
      // only then) fails as the URL check would have failed it.
      refusedByProxy: () => (pageHost && request.publicAddressesOnly ? proxies?.refusalOf(pageHost, proxySince) : undefined),
      forget() {
        refused = undefined;
        pageChecks.length = 0;
        proxySince = Date.now();
      },
    },
  };
}

/** Why the page's own navigations were refused, if they were. */
interface PageGuard {
  /** The first refused navigation or redirect of the page, once every check so far has ended. */
  refusal(): Promise<unknown>;
  refusedByProxy(): unknown;
  /** Forgets the refusals so far (an interact session goes on after a refused navigation). */
  forget(): void;
}

async function render(context: BrowserContext, guard: PageGuard, request: RenderRequest, deadline: number): Promise<Rendered> {
  const page = await context.newPage();
  let rendered: Rendered;
  try {
    rendered = await renderIn(page, guard, request, deadline);
  } catch (error) {
    // Whatever failed after a refused navigation (an action waiting for a page that never came) failed because of it.
    throw (await guard.refusal()) ?? error;
  }
  // A navigation after load (a click, a script) to a refused address fails the scrape as the first page would.
  const refusal = await guard.refusal();
  if (refusal) throw refusal;
  return rendered;
}

async function renderIn(page: Page, guard: PageGuard, request: RenderRequest, deadline: number): Promise<Rendered> {
  const watch = watchPage(page);
  try {
    return await renderWatched(page, guard, request, deadline, watch);
  } finally {
    watch.stop();
  }
}

async function renderWatched(page: Page, guard: PageGuard, request: RenderRequest, deadline: number, watch: SettleWatch): Promise<Rendered> {
  const { options } = request;
  const response = await page.goto(request.url, { waitUntil: 'load', timeout: request.timeoutMs }).catch(async (error: Error) => {
    throw (await guard.refusal()) ?? guard.refusedByProxy() ?? error;
  });
  const refusal = await guard.refusal();
  if (refusal) throw refusal;
  // The proxy answers a refused plain-HTTP page with 403 (an HTTPS one fails its tunnel, above).
  if (response?.status() === 403 && guard.refusedByProxy()) throw guard.refusedByProxy();
  // The operator's proxy failed a plain-HTTP page: the in-process proxy's 502 says why.
  const proxyFailed = request.proxy && response?.status() === 502 ? await response.headerValue(PROXY_FAILURE_HEADER) : null;
  if (proxyFailed) throw proxyFailure(request, proxyFailed);
  // The page is read once it settles (a script that draws after load has drawn); `waitFor` comes on top of that wait.
  await watch.observe();
  if (options.waitFor) await page.waitForTimeout(options.waitFor);
  const warning = await watch.settle(settleCap(deadline));
  const artifacts = artifactWriter(request);
  const actions = options.actions && options.actions.length > 0 ? await runActions(page, options.actions, artifacts) : undefined;
  const screenshotSettings = screenshotFormatOf(options);
  const screenshot = screenshotSettings && (await artifacts.screenshot(page, screenshotSettings));
  const branding = wantsBranding(options.formats) ? ((await page.evaluate(BRANDING_PROBE)) as BrandingSample) : undefined;
  const html = await page.content();
  return {
    page: {
      requestedUrl: request.url,
      finalUrl: page.url(),
      statusCode: response?.status() ?? 200,
      headers: response ? await response.allHeaders() : {},
      // What the browser drew is HTML, whatever the first response was.
      contentType: 'text/html; charset=utf-8',
      body: Buffer.from(html, 'utf8'),
      redirects: [],
    },
    ...(screenshot && { screenshot }),
    ...(actions && { actions }),
    ...(branding && { branding }),
    ...(warning && { warning }),
  };
}

type ScreenshotSettings = { fullPage?: boolean; quality?: number; viewport?: { width: number; height: number } };

/** The screenshot format's settings when it is asked for (`{}` for the bare name). */
function screenshotFormatOf(options: ScrapeOptions): ScreenshotSettings | undefined {
  for (const format of options.formats ?? []) {
    if (format === 'screenshot') return {};
    if (typeof format !== 'string' && format.type === 'screenshot') return format;
  }
  return undefined;
}

function artifactWriter(request: RenderRequest) {
  let count = 0;
  const save = async (extension: string, bytes: Buffer) => {
    await mkdir(request.artifactsDir, { recursive: true, mode: 0o700 });
    const path = join(request.artifactsDir, `${request.scrapeId}-${++count}.${extension}`);
    await writeFile(path, bytes, { mode: 0o600 });
    return pathToFileURL(path).href;
  };
  return {
    async screenshot(page: Page, settings: ScreenshotSettings) {
      if (settings.viewport) await page.setViewportSize(settings.viewport);
      const jpeg = settings.quality !== undefined;
      return save(
        jpeg ? 'jpg' : 'png',
        await page.screenshot({ fullPage: settings.fullPage ?? false, type: jpeg ? 'jpeg' : 'png', ...(jpeg && { quality: settings.quality }) }),
      );
    },
    async pdf(page: Page, settings: { format?: string; landscape?: boolean; scale?: number }) {
      return save('pdf', await page.pdf({ format: settings.format ?? 'Letter', landscape: settings.landscape ?? false, scale: settings.scale ?? 1 }));
    },
  };
}

/** How long an action waits for its selector before it fails. */
const SELECTOR_WAIT_MS = 5000;

async function runActions(page: Page, actions: readonly Action[], artifacts: ReturnType<typeof artifactWriter>): Promise<ActionResults> {
  const results: ActionResults = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  for (const [index, action] of actions.entries()) {
    const failed = (reason: string) =>
      new WebwatchError(`action ${index + 1} (${action.type}) failed: ${reason}`, {
        status: 400,
        code: 'SCRAPE_ACTION_ERROR',
        details: { action: index, type: action.type, reason },
      });
    const element = async (selector: string) => {
      const found = await page.waitForSelector(selector, { state: 'attached', timeout: SELECTOR_WAIT_MS }).catch(() => null);
      if (!found) throw failed(`no element matches the selector ${JSON.stringify(selector)}`);
      return found;
    };
    switch (action.type) {
      case 'wait':
        if (action.selector) await element(action.selector);
        else await page.waitForTimeout(action.milliseconds!);
        break;
      case 'click':
        if (action.all) {
          for (const match of await page.$$(action.selector)) await match.click().catch(() => undefined);
        } else {
          await (await element(action.selector)).click();
        }
        break;
      case 'write':
        // Typed into whatever the previous click focused, key by key, as a person would.
        await page.keyboard.type(action.text);
        break;
      case 'press':
        await page.keyboard.press(action.key).catch((error: Error) => {
          throw failed(`the key ${JSON.stringify(action.key)} cannot be pressed: ${error.message.split('\n')[0]}`);
        });
        break;
      case 'scroll': {
        const down = (action.direction ?? 'down') === 'down';
        if (action.selector) await (await element(action.selector)).evaluate((node, d) => node.scrollBy(0, d ? node.clientHeight : -node.clientHeight), down);
        else await page.evaluate(`window.scrollBy(0, ${down ? '' : '-'}window.innerHeight)`);
        // Content loaded on scroll gets a moment to arrive.
        await page.waitForLoadState('networkidle', { timeout: 2000 }).catch(() => undefined);
        break;
      }
      case 'screenshot':
        results.screenshots.push(await artifacts.screenshot(page, action));
        break;
      case 'scrape':
        results.scrapes.push({ url: page.url(), html: await page.content() });
        break;
      case 'executeJavascript': {
        // A script with `return` is a function body (as the hosted API runs them); else an expression.
        const source = /\breturn\b/.test(action.script) ? `(async () => { ${action.script}\n})()` : action.script;
        const value = await page.evaluate(source).catch((error: Error) => {
          throw failed(`the script threw: ${error.message.split('\n')[0]}`);
        });
        results.javascriptReturns.push({ type: value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value, value: value ?? null });
        break;
      }
      case 'pdf':
        results.pdfs.push(await artifacts.pdf(page, action));
        break;
    }
  }
  return results;
}
