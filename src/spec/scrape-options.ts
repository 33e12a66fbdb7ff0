/**
 * ScrapeOptions (spec §2.7), formats (§2.8) and actions (§2.9). Every object is closed: an
 * option of another service or a misspelt one is refused by name, in requests as in files.
 */
import { z } from 'zod';
import {
  closedObject,
  domainName,
  FRAMING_HEADERS,
  headerFields,
  nonEmptyString,
  requestTags,
  topLevelDomain,
  type SchemaMode,
  stringKeyed,
} from './fields.js';
import * as limits from './limits.js';

import { FORMAT_NAMES } from './names.js';

export { FORMAT_NAMES };
export type FormatName = (typeof FORMAT_NAMES)[number];

/** Formats whose options have a required field, so they cannot be named by a bare string. */
const FORMATS_NEEDING_OPTIONS: Partial<Record<FormatName, string>> = {
  question: 'question',
  highlights: 'query',
};

export const PDF_PAGE_FORMATS = ['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'] as const;
export const PII_ENTITIES = ['PERSON', 'EMAIL', 'PHONE', 'LOCATION', 'FINANCIAL', 'SECRET'] as const;

const imageQuality = () => z.number().int().min(limits.IMAGE_QUALITY_MIN).max(limits.IMAGE_QUALITY_MAX);

/**
 * `waitFor` against the timeout it shares (limits.WAIT_FOR_TIMEOUT_FRACTION): the timeout given,
 * else the default one, which the message names, with the fix (a longer timeout, or a shorter
 * wait).
 */
export function waitForProblem(waitFor: number, timeout: number | undefined): string | undefined {
  const effective = timeout ?? limits.SCRAPE_TIMEOUT_DEFAULT_MS;
  const most = Math.floor(effective * limits.WAIT_FOR_TIMEOUT_FRACTION);
  if (waitFor <= most) return undefined;
  const needed = Math.ceil(waitFor / limits.WAIT_FOR_TIMEOUT_FRACTION);
  const hint =
    needed <= limits.SCRAPE_TIMEOUT_MAX_MS
      ? `a timeout of at least ${needed} ms allows it`
      : `no timeout allows it: the longest, ${limits.SCRAPE_TIMEOUT_MAX_MS} ms, allows at most ${Math.floor(limits.SCRAPE_TIMEOUT_MAX_MS * limits.WAIT_FOR_TIMEOUT_FRACTION)} ms`;
  const against = timeout === undefined ? `the default timeout of ${effective} ms, which applies as timeout is not given` : `the timeout of ${effective} ms`;
  return `waitFor must not exceed half of timeout: ${waitFor} ms is more than half of ${against} (${most} ms); ${hint}`;
}

/** The rule runs beside the other fields' errors, once waitFor and timeout are each valid. */
function waitForComparable(payload: z.core.ParsePayload): boolean {
  const value = payload.value as { waitFor?: unknown; timeout?: unknown } | null;
  if (typeof value !== 'object' || value === null) return false;
  const { waitFor, timeout } = value;
  const validTimeout =
    timeout === undefined ||
    (Number.isInteger(timeout) && (timeout as number) >= limits.SCRAPE_TIMEOUT_MIN_MS && (timeout as number) <= limits.SCRAPE_TIMEOUT_MAX_MS);
  return Number.isInteger(waitFor) && (waitFor as number) >= 0 && validTimeout;
}

/**
 * What the hosted SDK's ScrapeOptions type has beyond spec §2.7, accepted on the wire and
 * dropped from the options (they change nothing webwatch does): who sent the request, the
 * deprecated fastMode, and the discovery of Alexandria tools, which webwatch does not have (the
 * answer simply carries no `tools`). `useMock` names a recorded answer of the hosted service's
 * tests; webwatch has none, and scrapes the page.
 */
const sdkScrapeFields = () => ({
  ...requestTags(),
  fastMode: z.boolean().optional(),
  useMock: z.string().optional(),
  domainTools: z.boolean().optional(),
  toolDetail: z.enum(['compact', 'summary', 'full']).optional(),
});

/** `location` (spec §2.7): also what map takes. */
export const locationSchema = () =>
  closedObject({
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be a two-letter ISO 3166-1 country code in capitals, like US')
      .optional(),
    languages: z.array(nonEmptyString()).optional(),
  });

const threatList = (wildcard: boolean) => z.array(domainName(wildcard)).max(limits.THREAT_LIST_MAX);

/** The per-request `threatProtection` override (spec §2.7): also what map and search take. */
export const threatProtectionSchema = () =>
  closedObject({
    mode: z.enum(['off', 'normal']).optional(),
    blacklist: threatList(true).optional(),
    whitelist: threatList(true).optional(),
    blockedTlds: z.array(topLevelDomain()).max(limits.THREAT_LIST_MAX).optional(),
    failurePolicy: z.enum(['open', 'closed']).optional(),
    riskScoreThreshold: z.number().int().min(limits.RISK_SCORE_MIN).max(limits.RISK_SCORE_MAX).optional(),
  });

/** `auditMetadata` (spec §2.7, closed by the spec): also what map and agent jobs take. */
export const auditMetadataSchema = () =>
  closedObject({
    username: z.string().max(limits.AUDIT_USERNAME_MAX_LENGTH),
  });

export function buildScrapeOptionsSchemas(mode: SchemaMode) {
  const object = closedObject;

  const viewport = object({
    width: z.number().int().positive().max(limits.VIEWPORT_WIDTH_MAX),
    height: z.number().int().positive().max(limits.VIEWPORT_HEIGHT_MAX),
  });

  const screenshotOptions = {
    fullPage: z.boolean().optional(),
    quality: imageQuality().optional(),
    viewport: viewport.optional(),
  };

  const bareFormat = <T extends FormatName>(type: T) => object({ type: z.literal(type) });

  const formatObject = z.discriminatedUnion('type', [
    bareFormat('markdown'),
    bareFormat('summary'),
    bareFormat('html'),
    bareFormat('rawHtml'),
    bareFormat('rawBase64'),
    bareFormat('links'),
    bareFormat('images'),
    bareFormat('branding'),
    bareFormat('product'),
    bareFormat('menu'),
    bareFormat('audio'),
    bareFormat('video'),
    object({ type: z.literal('screenshot'), ...screenshotOptions }),
    object({
      type: z.literal('json'),
      prompt: z.string().optional(),
      schema: stringKeyed(z.unknown()).optional(),
      checkPromptInjection: z.boolean().optional(),
    }),
    object({
      type: z.literal('changeTracking'),
      modes: z.array(z.enum(['git-diff', 'json'])).optional(),
      prompt: z.string().optional(),
      schema: stringKeyed(z.unknown()).optional(),
      tag: z.string().nullable().optional(),
    }),
    object({ type: z.literal('question'), question: nonEmptyString().max(limits.QUESTION_MAX_LENGTH) }),
    object({ type: z.literal('highlights'), query: nonEmptyString().max(limits.QUESTION_MAX_LENGTH) }),
  ]);

  const formatName = z.enum(FORMAT_NAMES).check((ctx) => {
    const needed = FORMATS_NEEDING_OPTIONS[ctx.value];
    if (needed) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `the ${ctx.value} format needs options: write {type: ${ctx.value}, ${needed}: ...}`,
      });
    }
  });

  const formats = z.array(z.union([formatName, formatObject])).check((ctx) => {
    const seen = new Set<string>();
    ctx.value.forEach((format, index) => {
      const type = typeof format === 'string' ? format : format.type;
      if (seen.has(type)) {
        ctx.issues.push({ code: 'custom', input: format, path: [index], message: `format ${type} is listed twice` });
      }
      seen.add(type);
    });
  });

  const action = z.discriminatedUnion('type', [
    // The spec closes `wait`: exactly one of the two forms, no other properties.
    closedObject({
      type: z.literal('wait'),
      milliseconds: z.number().int().min(1).optional(),
      selector: nonEmptyString().optional(),
    }).check((ctx) => {
      const forms = [ctx.value.milliseconds, ctx.value.selector].filter((v) => v !== undefined).length;
      if (forms !== 1) {
        ctx.issues.push({
          code: 'custom',
          input: ctx.value,
          message: forms === 0 ? 'a wait action needs either milliseconds or selector' : 'a wait action takes either milliseconds or selector, not both',
        });
      }
    }),
    object({ type: z.literal('screenshot'), ...screenshotOptions }),
    object({ type: z.literal('click'), selector: nonEmptyString(), all: z.boolean().optional() }),
    object({ type: z.literal('write'), text: z.string() }),
    object({ type: z.literal('press'), key: nonEmptyString() }),
    object({ type: z.literal('scroll'), direction: z.enum(['up', 'down']).optional(), selector: nonEmptyString().optional() }),
    object({ type: z.literal('scrape') }),
    object({ type: z.literal('executeJavascript'), script: nonEmptyString() }),
    object({
      type: z.literal('pdf'),
      format: z.enum(PDF_PAGE_FORMATS).optional(),
      landscape: z.boolean().optional(),
      scale: z.number().positive().optional(),
    }),
  ]);

  const pdfParserShape = {
    type: z.literal('pdf'),
    mode: z.enum(['fast', 'auto', 'ocr']).optional(),
    maxPages: z.number().int().min(limits.PDF_MAX_PAGES_MIN).max(limits.PDF_MAX_PAGES_MAX).optional(),
    pages: z.boolean().optional(),
    blocks: z.boolean().optional(),
    pageMarkers: z.boolean().optional(),
  };
  // On the wire, `pageMarkdown` too: the SDK's deprecated name of `pages`, an alias the hosted API still takes.
  const parserObject =
    mode === 'file'
      ? object(pdfParserShape)
      : object({ ...pdfParserShape, pageMarkdown: z.boolean().optional() }).transform(({ pageMarkdown, ...parser }) =>
          pageMarkdown === undefined || parser.pages !== undefined ? parser : { ...parser, pages: pageMarkdown },
        );

  const redactPII = z.union([
    z.boolean(),
    // Closed by the spec.
    closedObject({
      mode: z.enum(['accurate', 'aggressive', 'fast']).optional(),
      entities: z.array(z.enum(PII_ENTITIES)).optional(),
      replaceStyle: z.enum(['tag', 'mask', 'remove']).optional(),
    }),
  ]);

  const scrapeOptionsShape = {
    formats: formats.optional(),
    actions: z.array(action).optional(),
    onlyMainContent: z.boolean().optional(),
    onlyCleanContent: z.boolean().optional(),
    includeTags: z.array(nonEmptyString()).optional(),
    excludeTags: z.array(nonEmptyString()).optional(),
    headers: headerFields(FRAMING_HEADERS).optional(),
    blockAds: z.boolean().optional(),
    removeBase64Images: z.boolean().optional(),
    skipTlsVerification: z.boolean().optional(),
    mobile: z.boolean().optional(),
    waitFor: z.number().int().min(0).optional(),
    timeout: z.number().int().min(limits.SCRAPE_TIMEOUT_MIN_MS).max(limits.SCRAPE_TIMEOUT_MAX_MS).optional(),
    maxAge: z.number().int().min(0).optional(),
    minAge: z.number().int().min(0).optional(),
    storeInCache: z.boolean().optional(),
    lockdown: z.boolean().optional(),
    proxy: z.enum(['basic', 'enhanced', 'auto']).optional(),
    location: locationSchema().optional(),
    parsers: z.array(z.union([z.literal('pdf'), parserObject])).optional(),
    profile: object({
      name: z.string().min(limits.PROFILE_NAME_MIN_LENGTH).max(limits.PROFILE_NAME_MAX_LENGTH),
      saveChanges: z.boolean().optional(),
    }).optional(),
    redactPII: redactPII.optional(),
    threatProtection: threatProtectionSchema().optional(),
    auditMetadata: auditMetadataSchema().optional(),
  };

  const waitForRule = (options: { waitFor?: number | undefined; timeout?: number | undefined }, ctx: z.core.$RefinementCtx) => {
    const problem = options.waitFor === undefined ? undefined : waitForProblem(options.waitFor, options.timeout);
    if (problem) ctx.addIssue({ code: 'custom', path: ['waitFor'], input: options.waitFor, message: problem });
  };

  const fileOptions = object(scrapeOptionsShape).superRefine(waitForRule, { when: waitForComparable });
  const scrapeOptions: z.ZodType<z.output<typeof fileOptions>, z.input<typeof fileOptions>> = mode === 'file'
    ? fileOptions
    : object({ ...scrapeOptionsShape, ...sdkScrapeFields() })
        .superRefine(waitForRule, { when: waitForComparable })
        .transform(({ origin, integration, fastMode, useMock, domainTools, toolDetail, ...options }) => options);

  return { scrapeOptions, formats, action, viewport, shape: scrapeOptionsShape };
}

export type ScrapeOptions = z.infer<ReturnType<typeof buildScrapeOptionsSchemas>['scrapeOptions']>;
export type Format = NonNullable<ScrapeOptions['formats']>[number];
export type Action = NonNullable<ScrapeOptions['actions']>[number];
