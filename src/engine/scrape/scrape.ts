/**
 * One scrape on the local engine: policy checks, the cache, the fetch, the content pipeline
 * (convert.ts, loaded when a page needs converting) and the v2 document's shape.
 */
import { createHash } from 'node:crypto';
import { timeOrderedUuid } from '../../lib/time-ordered-uuid.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { CREDITS, LOCKDOWN_MAX_AGE_DEFAULT_MS, MAX_AGE_DEFAULT_MS, SCRAPE_TIMEOUT_DEFAULT_MS } from '../../spec/limits.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { fetchPage, parseTargetUrl, type FetchedPage } from '../fetch/fetch-page.js';
import { proxyAttempts, type ProxyChoice, type ProxySettings } from '../fetch/proxy.js';
import type { Rendered } from '../browser/render.js';
import { googleExportUrl } from '../pdf/google-docs.js';
import { diffMarkdown, sameContent } from '../diff/markdown-diff.js';
import { diffTrackedFields } from '../diff/json-diff.js';
import { extractionWanted, modelNeeds, modelNotConfigured, trackingSettings, type TrackingSettings } from '../extract/needs.js';
import type { LlmSettings } from '../llm/chat.js';
import { pageCredits } from '../../spec/credits.js';
import type { ScrapeStore, TrackingKey } from '../store/scrape-cache.js';
import { effectiveThreatRules, NO_THREAT_POLICY, threatGuard, type OrganizationThreatPolicy } from '../threat/threat-protection.js';
import { cacheKey, isSensitive, privateScope } from './cache-key.js';
import { PAGE_HEADINGS, type ChangeTracking, type DocumentWithHeadings, type ScrapeDocument } from './document.js';
import type { PageConverter } from './convert-pool.js';
import { requestHeaders } from '../fetch/request-headers.js';
import type { Env } from '../../lib/env.js';

export interface ScrapeContext {
  version: string;
  now(): Date;
  /** The cache and change-tracking history; without it nothing is cached or tracked. */
  store?: ScrapeStore;
  /** The organisation's threat-protection policy (config); none by default. */
  threatPolicy?: OrganizationThreatPolicy;
  /** Checks the URL and every redirect target; throws to refuse one. */
  checkUrl?: (url: URL) => void | Promise<void>;
  /** Sockets connect only to public addresses (serve without --allow-private-targets). */
  publicAddressesOnly?: boolean;
  /** The operator's proxies of `proxy: basic` and `enhanced` (config); pages are fetched directly without them. */
  proxies?: ProxySettings;
  signal?: AbortSignal;
  /** The model of the model formats (summary, json...); without it they fail saying how to configure one. */
  llm?: LlmSettings;
  /** The browser for pages that need one; without it such a scrape fails with the install hint. */
  browser?: {
    env: Env;
    executablePath?: string;
    /** Script-drawn pages are rendered unasked (default true). */
    autoRender?: boolean;
    /** Screenshots and PDFs go here (the engine's home, per team). */
    artifactsDir: string;
    /** `profile` storage is kept here (the engine's home, per team). */
    profilesDir?: string;
  };
  /** Converts fetched pages in place of the content pipeline on this thread (a check's worker threads). */
  convert?: PageConverter;
  /**
   * Zero data retention (spec/zero-data-retention.ts): nothing of the page is kept, neither in
   * the cache nor in a change-tracking history, and each page costs `surcharge` credits more.
   * Lockdown keeps nothing either, without the surcharge.
   */
  zeroDataRetention?: { surcharge: number };
}

export interface ScrapeRequest {
  url: string;
  options: ScrapeOptions;
  /** A file given instead of fetched (`POST /v2/parse`): read as a response of this type would be. */
  upload?: { body: Buffer; contentType: string };
}

type FormatName = 'markdown' | 'html' | 'rawHtml' | 'rawBase64' | 'links' | 'images' | 'changeTracking';

export function requestedFormats(options: ScrapeOptions): Set<string> {
  const formats = options.formats ?? ['markdown'];
  return new Set(formats.map((format) => (typeof format === 'string' ? format : format.type)));
}

/** Compares with the previous scrape of the same history (team, URL, tag, private scope), then remembers this one unless told not to. */
async function trackChanges(
  store: ScrapeStore,
  key: TrackingKey,
  tracking: TrackingSettings,
  document: ScrapeDocument,
  trackedJson: unknown,
  now: number,
  remember: boolean,
): Promise<ChangeTracking> {
  const previous = await store.getTracked(key);
  const markdown = document.markdown ?? '';
  const gone = document.metadata.statusCode === 404 || document.metadata.statusCode === 410;
  if (remember) await store.putTracked(key, markdown, now, tracking.json ? (trackedJson ?? null) : undefined);
  const previousScrapeAt = previous ? new Date(previous.scrapedAt).toISOString() : null;
  if (gone) return { previousScrapeAt, changeStatus: 'removed', visibility: 'visible' };
  if (!previous) return { previousScrapeAt, changeStatus: 'new', visibility: 'visible' };
  // In json mode the extracted fields decide, and with git-diff mode too the markdown's lines: a
  // changed page carries the diff of each mode asked for (the hosted API's shapes: `diff` with
  // its text and files, `json` with each changed field's `{old, new}`).
  if (tracking.json) {
    const fields = diffTrackedFields(previous.json ?? null, trackedJson ?? null);
    const linesChanged = tracking.gitDiff && !sameContent(previous.markdown, markdown);
    if (Object.keys(fields).length === 0 && !linesChanged) return { previousScrapeAt, changeStatus: 'same', visibility: 'visible' };
    const lines = tracking.gitDiff ? { diff: diffMarkdown(previous.markdown, markdown) } : {};
    return { previousScrapeAt, changeStatus: 'changed', visibility: 'visible', ...lines, json: fields };
  }
  if (sameContent(previous.markdown, markdown)) return { previousScrapeAt, changeStatus: 'same', visibility: 'visible' };
  return { previousScrapeAt, changeStatus: 'changed', visibility: 'visible', diff: diffMarkdown(previous.markdown, markdown) };
}

/**
 * Threat protection and the caller's rule (serve's private addresses) as one URL check, or
 * undefined when neither applies; threat protection's warnings go to `warnings`.
 */
function urlRule(context: ScrapeContext, options: ScrapeOptions, warnings: string[]): ((url: URL) => Promise<void>) | undefined {
  const rules = effectiveThreatRules(context.threatPolicy ?? NO_THREAT_POLICY, options.threatProtection);
  const guard = rules && threatGuard(rules, warnings);
  if (!guard && !context.checkUrl) return undefined;
  return async (url: URL) => {
    await context.checkUrl?.(url);
    guard?.(url);
  };
}

/**
 * The `video` and `audio` formats (media/media-scrape.ts): not with lockdown or zero data
 * retention (a media file is kept), and within the scrape's URL rule, which the media tools'
 * proxy applies to every request they make.
 */
async function scrapeMedia({ url, options }: ScrapeRequest, context: ScrapeContext): Promise<ScrapeDocument> {
  const { mediaFormatsOf, mediaRefusal, mediaScrape } = await import('../media/media-scrape.js');
  const formats = mediaFormatsOf(options);
  const refusal =
    mediaRefusal(options) ??
    (context.zeroDataRetention ? 'zero data retention keeps nothing, and the formats keep a file' : undefined) ??
    (context.browser ? undefined : 'this engine has no directory for files');
  if (refusal) {
    throw new WebwatchError(`the ${formats.join(' and ')} format${formats.length > 1 ? 's are' : ' is'} not available for this request: ${refusal}`, {
      status: 400,
      code: 'UNSUPPORTED_BY_LOCAL_ENGINE',
      details: { reason: refusal },
    });
  }
  // The scrape's URL rule, for every manifest and segment the media tools fetch.
  const checkUrl = urlRule(context, options, []);
  return mediaScrape(url, options, formats, {
    artifactsDir: context.browser!.artifactsDir,
    ...(context.signal && { signal: context.signal }),
    ...(checkUrl && { checkUrl }),
    ...(context.publicAddressesOnly && { publicAddressesOnly: true }),
    scrapePage: (pageOptions) => scrape({ url, options: pageOptions }, context),
  });
}

export async function scrape(request: ScrapeRequest, context: ScrapeContext): Promise<ScrapeDocument> {
  // Its document alone is wanted: the response's fingerprint (a hash of the body) is not worked out.
  const outcome = await scrapeUnlessUnchanged(request, context, undefined, { fingerprint: false });
  if ('unchanged' in outcome) throw new Error('a scrape without a known fingerprint cannot be unchanged');
  return outcome.document;
}

/**
 * A scrape that can stop early: when the response's fingerprint (its bytes, status, type and
 * final URL, the content options and the engine version) equals `knownFingerprint`, the
 * content would come out exactly as last time, so conversion is skipped. Monitor checks use
 * it; a page served from the cache has no fingerprint.
 */
export type FingerprintedScrape =
  | { document: ScrapeDocument; fingerprint: string | null; trackedJson?: unknown }
  | { unchanged: { statusCode: number; scrapeId: string; fingerprint: string } };

export async function scrapeUnlessUnchanged(
  request: ScrapeRequest,
  context: ScrapeContext,
  knownFingerprint: string | undefined,
  wants: { fingerprint: boolean } = { fingerprint: true },
): Promise<FingerprintedScrape> {
  const { options } = request;
  const formats = requestedFormats(options);
  if (formats.has('video') || formats.has('audio')) return { document: await scrapeMedia(request, context), fingerprint: null };
  // Before any request: a scrape that cannot be finished is not started.
  const needs = modelNeeds(options);
  if (needs.length > 0 && !context.llm) throw modelNotConfigured(needs);
  const { store } = context;
  const now = context.now().getTime();
  const threatWarnings: string[] = [];
  const checkUrl = urlRule(context, options, threatWarnings);
  const warned = (document: ScrapeDocument): ScrapeDocument => {
    const warning = [document.warning, ...threatWarnings].filter(Boolean).join('; ');
    return warning ? { ...document, warning } : document;
  };
  const tracking = trackingSettings(options);
  // Zero data retention, asked for or by lockdown: nothing of the page is written.
  const keepsNothing = context.zeroDataRetention !== undefined || options.lockdown === true;
  const surcharge = context.zeroDataRetention?.surcharge ?? 0;
  const cacheOnly = options.lockdown === true || options.minAge !== undefined;
  const key = cacheKey(request.url, options);
  const trackingKey = tracking && { url: request.url, tag: tracking.tag, scope: privateScope(options) };
  const withTracking = async (document: ScrapeDocument, trackedJson: unknown = document.json): Promise<ScrapeDocument> =>
    warned(
      tracking && trackingKey && store
        ? { ...document, changeTracking: await trackChanges(store, trackingKey, tracking, document, trackedJson, now, !keepsNothing) }
        : document,
    );

  // The network rules (serve's private-address rule, threat protection) judge the URL before
  // the cache is read: a page that may not be fetched may not be read from the cache either.
  if (checkUrl) await checkUrl(parseTargetUrl(request.url));

  // maxAge 0 (a monitor check's default) asks for the page as it is now, which no entry is; a
  // scrape with actions is never stored, so never found. A change-tracking scrape reads the
  // cache as any other does (as the hosted API's does): a copy younger than maxAge is compared
  // with the tracked one. Only a scrape that reads the cache has a cacheState.
  const maxAge = options.maxAge ?? (options.lockdown ? LOCKDOWN_MAX_AGE_DEFAULT_MS : MAX_AGE_DEFAULT_MS);
  const withActions = (options.actions?.length ?? 0) > 0;
  const readsCache = store !== undefined && maxAge > 0 && (cacheOnly || !withActions);
  if (store && readsCache) {
    const hit = await store.getCached(key);
    const age = hit ? now - hit.cachedAt : Infinity;
    const usable = hit && age < maxAge && (options.minAge === undefined || age >= options.minAge);
    // The page it was redirected to is judged too.
    const landedAt = usable ? hit.document.metadata.url : undefined;
    if (checkUrl && landedAt && landedAt !== request.url) await checkUrl(parseTargetUrl(landedAt));
    if (usable) {
      return {
        fingerprint: null,
        document: await withTracking({
          ...hit.document,
          metadata: {
            ...hit.document.metadata,
            scrapeId: timeOrderedUuid(),
            cacheState: 'hit',
            cachedAt: new Date(hit.cachedAt).toISOString(),
            // Entries stored before proxyUsed was recorded were all fetched directly: basic.
            proxyUsed: hit.document.metadata.proxyUsed ?? 'basic',
            creditsUsed: (options.lockdown ? CREDITS.lockdownHit : 1) + surcharge,
          },
        }),
      };
    }
  }
  if (options.lockdown) {
    // Lockdown counts as zero data retention: the error does not carry the URL.
    throw new WebwatchError(ERROR_MESSAGES.lockdownCacheMiss, { status: 404, code: ERROR_MESSAGES.lockdownCacheMiss });
  }
  if (options.minAge !== undefined) {
    throw new WebwatchError(ERROR_MESSAGES.noCachedData, { status: 404, code: ERROR_MESSAGES.noCachedData, details: { url: request.url } });
  }

  const fetched = await fetchAndConvert(
    request,
    { ...context, ...(checkUrl && { checkUrl }) },
    { cacheKey: key, known: knownFingerprint, wanted: wants.fingerprint },
    readsCache,
  );
  if ('unchanged' in fetched) return fetched;
  const document =
    surcharge === 0
      ? fetched.document
      : { ...fetched.document, metadata: { ...fetched.document.metadata, creditsUsed: fetched.document.metadata.creditsUsed + surcharge } };
  // Sensitive options (actions, headers, profile) force storeInCache to false; server errors are
  // not stored either, nor anything under zero data retention.
  if (store && !keepsNothing && (options.storeInCache ?? true) && !isSensitive(options) && document.metadata.statusCode < 500) {
    await store.putCached(key, request.url, document, now);
  }
  return {
    document: await withTracking(document, fetched.trackedJson),
    fingerprint: fetched.fingerprint,
    ...('trackedJson' in fetched && { trackedJson: fetched.trackedJson }),
  };
}

/** Why a request needs a browser, or undefined when a plain fetch does it. */
export function browserNeed(options: ScrapeOptions): string | undefined {
  if (options.actions && options.actions.length > 0) return 'actions';
  if (requestedFormats(options).has('screenshot')) return 'the screenshot format';
  if (requestedFormats(options).has('branding')) return 'the branding format';
  if (options.waitFor) return 'waitFor';
  if (options.mobile) return 'mobile';
  if (options.profile) return 'profile';
  return undefined;
}

/**
 * An HTML page whose text is almost all missing until scripts run: little visible text, and an
 * empty application root (`<div id="root"></div>`, app, __next, __nuxt) or a notice that asks
 * for JavaScript. Cheap, on the raw bytes, so that plain pages pay nothing.
 */
export function looksDrawnByScript(page: FetchedPage): boolean {
  if (!/html/i.test(page.contentType ?? 'text/html') || page.body.length > 2_000_000) return false;
  const html = page.body.toString('utf8');
  if (!/<script\b/i.test(html)) return false;
  const emptyRoot = /<(div|main|section|body)\b[^>]*\bid=["']?(root|app|__next|__nuxt|main-app|application)["']?[^>]*>\s*<\/\1>/i.test(html);
  // Without an empty root or a <noscript> to ask for scripts, no need to measure the text (stripping every tag is the costly part).
  if (!emptyRoot && !/<noscript\b/i.test(html)) return false;
  const text = html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length > 400) return false;
  return emptyRoot || /<noscript\b[^>]*>[\s\S]*?(enable|requires?|need)[\s\S]*?javascript[\s\S]*?<\/noscript>/i.test(html);
}

/** How one attempt reaches the page: within `timeoutMs`, through the chosen proxy, if any. */
interface Attempt {
  timeoutMs: number;
  proxy: ProxyChoice;
}

const viaProxy = (attempt: Attempt) => (attempt.proxy.url ? { proxy: { url: attempt.proxy.url, level: attempt.proxy.level } } : {});

async function render(request: ScrapeRequest, context: ScrapeContext, scrapeId: string, why: string, attempt: Attempt): Promise<Rendered> {
  const { findChromium } = await import('../browser/chromium.js');
  const executablePath = findChromium(context.browser?.env ?? {}, context.browser?.executablePath, why);
  const { renderPage } = await import('../browser/render.js');
  return renderPage({
    url: request.url,
    options: request.options,
    headers: requestHeaders(request.options, context.version),
    timeoutMs: attempt.timeoutMs,
    executablePath,
    artifactsDir: context.browser?.artifactsDir ?? '.',
    scrapeId,
    ...(context.checkUrl && { checkUrl: context.checkUrl }),
    ...(context.publicAddressesOnly && { publicAddressesOnly: true }),
    ...viaProxy(attempt),
    ...(context.browser?.profilesDir && { profilesDir: context.browser.profilesDir }),
    ...(context.signal && { signal: context.signal }),
  });
}

/**
 * What a plain fetch asks for the URL asked: a Google Docs or Slides document's PDF export
 * instead of its editor page (pdf/google-docs.ts), otherwise the URL itself. A browser still
 * renders the page asked, for its actions and screenshots.
 */
function urlToFetch(url: string): string {
  return googleExportUrl(url) ?? url;
}

/** Bytes hashed at a time: 20 MB in one go held the thread 50-170 ms (bench/README.md). */
const FINGERPRINT_SLICE = 1024 * 1024;

async function responseFingerprint(version: string, cacheKey: string, page: FetchedPage): Promise<string> {
  const hash = createHash('sha256').update(`${version}\n${cacheKey}\n${page.statusCode}\n${page.contentType ?? ''}\n${page.finalUrl}\n`);
  // The same digest, in slices, with other work let in between them.
  for (let at = 0; at < page.body.length; at += FINGERPRINT_SLICE) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    hash.update(page.body.subarray(at, at + FINGERPRINT_SLICE));
  }
  return hash.digest('base64url');
}

/**
 * Statuses of a site that turns the request away (a bot wall, a login wall, a rate limit):
 * `proxy: auto` asks again through the enhanced proxy.
 */
const BLOCKED_STATUSES: ReadonlySet<number> = new Set([401, 403, 429]);

/**
 * Failures of the way to the site (not of the rules, the deadline or the page itself) that
 * `proxy: auto` tries again through the enhanced proxy.
 */
const FAILURES_RETRIED_ENHANCED: ReadonlySet<string> = new Set([
  'SCRAPE_CONNECTION_FAILED',
  'SCRAPE_FETCH_FAILED',
  'SCRAPE_DNS_RESOLUTION_ERROR',
  'SCRAPE_BROWSER_ERROR',
]);

interface Obtained {
  page: FetchedPage;
  rendered?: Rendered;
  browserWarning?: string;
}

/** The page by one attempt: fetched, and rendered when the request or the page needs a browser. */
async function obtain(request: ScrapeRequest, context: ScrapeContext, scrapeId: string, attempt: Attempt): Promise<Obtained> {
  const { options } = request;
  const needs = browserNeed(options);
  if (needs) {
    const rendered = await render(request, context, scrapeId, needs, attempt);
    return { page: rendered.page, rendered };
  }
  const fetchedFrom = Date.now();
  const page = await fetchPage({
    url: urlToFetch(request.url),
    timeoutMs: attempt.timeoutMs,
    headers: requestHeaders(options, context.version),
    skipTlsVerification: options.skipTlsVerification ?? true,
    ...(context.checkUrl && { checkUrl: context.checkUrl }),
    ...(context.publicAddressesOnly && { publicAddressesOnly: true }),
    ...viaProxy(attempt),
    ...(context.signal && { signal: context.signal }),
  });
  // A page drawn by script is rendered unasked, unless turned off; a plain page never pays for a browser.
  if (context.browser && context.browser.autoRender !== false && looksDrawnByScript(page)) {
    try {
      // Within what the fetch left of the attempt's time.
      const rendered = await render(request, context, scrapeId, 'a page drawn by script', {
        ...attempt,
        timeoutMs: Math.max(1, attempt.timeoutMs - (Date.now() - fetchedFrom)),
      });
      return { page: rendered.page, rendered };
    } catch (error) {
      if (!(error instanceof WebwatchError) || error.code !== 'BROWSER_NOT_FOUND') throw error;
      return { page, browserWarning: `the page looks drawn by script and no browser was found to render it (${error.suggestion ?? ''})` };
    }
  }
  return { page };
}

/**
 * The page by each proxy of the request's `proxy` option in turn (proxyAttempts): the next one
 * is tried when the last failed to reach the site or was turned away, within the scrape's one
 * timeout. What the last attempt got is the answer, with the proxy level it used.
 */
async function obtainByProxy(
  request: ScrapeRequest,
  context: ScrapeContext,
  scrapeId: string,
  timeoutMs: number,
): Promise<Obtained & { proxyUsed: ProxyChoice['level'] }> {
  const deadline = Date.now() + timeoutMs;
  const attempts = proxyAttempts(request.options.proxy, context.proxies);
  for (const [index, proxy] of attempts.entries()) {
    const last = index === attempts.length - 1;
    let obtained: Obtained;
    try {
      obtained = await obtain(request, context, scrapeId, { proxy, timeoutMs: index === 0 ? timeoutMs : Math.max(1, deadline - Date.now()) });
    } catch (error) {
      if (last || !(error instanceof WebwatchError) || !FAILURES_RETRIED_ENHANCED.has(error.code ?? '')) throw error;
      continue;
    }
    if (last || !BLOCKED_STATUSES.has(obtained.page.statusCode)) return { ...obtained, proxyUsed: proxy.level };
  }
  throw new Error('a scrape has at least one proxy attempt');
}

const uploadedPage = (url: string, upload: NonNullable<ScrapeRequest['upload']>): FetchedPage => ({
  requestedUrl: url,
  finalUrl: url,
  statusCode: 200,
  headers: { 'content-type': upload.contentType },
  contentType: upload.contentType,
  body: upload.body,
  redirects: [],
});

/**
 * A file read as a scrape would read it, had it been fetched (`POST /v2/parse`): no network, no
 * cache read or written, no change tracking. `url` names the file (`file:///NAME`), so that a
 * document's relative links stay relative to nothing of the network.
 */
export async function scrapeUpload(request: Required<Pick<ScrapeRequest, 'url' | 'options' | 'upload'>>, context: ScrapeContext): Promise<ScrapeDocument> {
  const needs = modelNeeds(request.options);
  if (needs.length > 0 && !context.llm) throw modelNotConfigured(needs);
  const { store: _, ...withoutStore } = context;
  const fetched = await fetchAndConvert(request, withoutStore, { cacheKey: '', known: undefined, wanted: false }, false);
  if ('unchanged' in fetched) throw new Error('an upload has no known fingerprint');
  const surcharge = context.zeroDataRetention?.surcharge ?? 0;
  const { document } = fetched;
  return surcharge === 0 ? document : { ...document, metadata: { ...document.metadata, creditsUsed: document.metadata.creditsUsed + surcharge } };
}

/** The content pipeline, loaded by the first page that needs it and kept: one import, not one a page. */
let contentPipeline: Promise<typeof import('./convert.js')> | undefined;

async function fetchAndConvert(
  request: ScrapeRequest,
  context: ScrapeContext,
  fingerprinting: { cacheKey: string; known: string | undefined; wanted: boolean },
  readsCache: boolean,
): Promise<FingerprintedScrape> {
  const { options } = request;
  const formats = requestedFormats(options);
  // Time-ordered: serve keeps a day of scrape documents indexed by their id (time-ordered-uuid.ts).
  const scrapeId = timeOrderedUuid();
  const startedAt = Date.now();
  const timeoutMs = options.timeout ?? SCRAPE_TIMEOUT_DEFAULT_MS;
  const { page, rendered, browserWarning, proxyUsed } = request.upload
    ? { page: uploadedPage(request.url, request.upload), rendered: undefined, browserWarning: undefined, proxyUsed: 'basic' as const }
    : await obtainByProxy(request, context, scrapeId, timeoutMs);
  const fingerprint =
    fingerprinting.wanted || fingerprinting.known !== undefined ? await responseFingerprint(context.version, fingerprinting.cacheKey, page) : null;
  if (fingerprint === fingerprinting.known && !rendered?.screenshot && !rendered?.actions)
    return { unchanged: { statusCode: page.statusCode, scrapeId, fingerprint } };
  // A PDF is read within what is left of the scrape's timeout.
  const limits = { deadline: startedAt + timeoutMs, timeoutMs, ...(context.signal && { signal: context.signal }) };
  const convert = context.convert ?? (await (contentPipeline ??= import('./convert.js'))).convertPage;
  const content = await convert(
    { body: page.body, contentType: page.contentType, finalUrl: page.finalUrl, ...(request.upload && { readImages: true }) },
    options,
    [...formats],
    limits,
  );
  const extracted = extractionWanted(options)
    ? await (await import('../extract/formats.js')).extractFormats(
        options,
        {
          url: page.finalUrl,
          markdown: content.markdown,
          ...(content.rawHtml !== undefined && /html/i.test(page.contentType ?? 'text/html') && { html: content.rawHtml }),
          metadata: content.metadata,
          ...(rendered?.branding && { branding: rendered.branding }),
        },
        { ...(context.llm && { llm: context.llm }), ...(context.signal && { signal: context.signal }) },
      )
    : undefined;
  const markdown = extracted?.markdown ?? content.markdown;
  const warning = [content.warning, browserWarning, rendered?.warning, ...(extracted?.warnings ?? [])].filter(Boolean).join('; ') || undefined;
  const want = (format: FormatName) => formats.has(format);
  const document: DocumentWithHeadings = {
    // Change tracking compares markdown, so it comes along.
    ...((want('markdown') || formats.has('changeTracking')) && { markdown }),
    ...(want('html') && { html: content.html ?? content.rawHtml ?? '' }),
    ...(want('rawHtml') && { rawHtml: content.rawHtml ?? '' }),
    ...(want('rawBase64') && { rawBase64: page.body.toString('base64') }),
    ...(want('links') && { links: content.links }),
    ...(want('images') && { images: content.images }),
    ...(extracted?.summary !== undefined && { summary: extracted.summary }),
    // The json format's answer; else what changeTracking's json mode extracted.
    ...(extracted && ('json' in extracted ? { json: extracted.json } : 'trackedJson' in extracted && { json: extracted.trackedJson })),
    ...(extracted?.answer !== undefined && { answer: extracted.answer }),
    ...(extracted?.highlights !== undefined && { highlights: extracted.highlights }),
    ...(extracted?.product && { product: extracted.product }),
    ...(extracted?.menu && { menu: extracted.menu }),
    ...(extracted?.branding && { branding: extracted.branding }),
    ...(rendered?.screenshot && { screenshot: rendered.screenshot }),
    ...(rendered?.actions && { actions: rendered.actions }),
    ...(content.pdf?.pages && { pages: content.pdf.pages }),
    ...(content.pdf?.blocks && { blocks: content.pdf.blocks }),
    ...(warning && { warning }),
    metadata: {
      ...content.metadata,
      sourceURL: request.url,
      url: page.finalUrl,
      statusCode: page.statusCode,
      ...(page.contentType && { contentType: page.contentType }),
      ...(content.pdf?.numPages !== undefined && { numPages: content.pdf.numPages }),
      ...(content.document?.numPages !== undefined && { numPages: content.document.numPages }),
      scrapeId,
      ...(readsCache && { cacheState: 'miss' as const }),
      proxyUsed,
      // A PDF costs its pages instead of the page's 1; formats add to either.
      creditsUsed: pageCredits(options, content.pdf?.creditsUsed),
    },
    ...(content.headings && { [PAGE_HEADINGS]: content.headings }),
  };
  return { document, fingerprint, ...(extracted && 'trackedJson' in extracted && { trackedJson: extracted.trackedJson }) };
}
