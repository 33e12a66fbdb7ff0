/**
 * Building blocks shared by the schemas: closed objects with "did you mean" hints for unknown
 * keys, http(s) URLs, domain names and crawl path patterns, each failing with a plain message.
 */
import { z } from 'zod';
import './zod-settings.js';
import { pathPatternProblem } from './path-patterns.js';
import { didYouMean } from './suggest.js';

/**
 * `file` validates definition files, `wire` API requests. Every object is closed in both, so an
 * unknown field (a typo, an option of another service) is an error naming it rather than
 * dropped. The wire also takes what the hosted SDK and CLI put in their requests beyond the
 * interface (`origin`, `integration`, deprecated aliases), which a definition file has no use for.
 */
export type SchemaMode = 'file' | 'wire';

/** One line per unknown key, in the order of `keys`; the issue formatter splits them. */
export function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  return keys.map((key) => `unknown field "${key}"${didYouMean(key, known)}`).join('\n');
}

export function closedObject<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, known) : undefined),
  });
}

/**
 * Who sent a request, as the hosted SDK and CLI say it in every body they post (`origin`:
 * `js-sdk@4.42.0`, `integration`: `cli`): accepted on the wire, used for nothing.
 */
export const requestTags = () => ({
  origin: z.string().optional(),
  integration: z.string().optional(),
});

/** A field the hosted SDK may send that webwatch refuses by name, saying why (never dropped). */
export const refusedField = (message: string) => z.undefined({ error: message }).optional();

export function describeHttpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return /^[a-z][a-z0-9+.-]*:/i.test(value) ? 'is not a valid URL' : 'must be an absolute URL starting with http:// or https://';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must use http or https, not ${url.protocol.slice(0, -1)}`;
  }
  if (!url.hostname) return 'must name a host';
  return undefined;
}

export const httpUrl = () =>
  z.string().check((ctx) => {
    const problem = describeHttpUrlProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`, 'i');

/** A bare domain name: no protocol, path or port. `wildcard` allows a leading `*.`. */
export function describeDomainProblem(value: string, wildcard: boolean): string | undefined {
  if (value.includes('://')) return `must be a domain name without a protocol (drop "${value.split('://')[0]}://")`;
  if (value.includes('/')) return 'must be a domain name without a path';
  if (/:\d*$/.test(value)) return 'must be a domain name without a port';
  const name = wildcard && value.startsWith('*.') ? value.slice(2) : value;
  if (name.includes('*')) {
    return wildcard ? 'may use a wildcard only as a leading "*." (like *.example.com)' : 'must not contain a wildcard';
  }
  if (name.length > 253 || !DOMAIN.test(name)) return 'is not a valid domain name';
  return undefined;
}

export const domainName = (wildcard: boolean) =>
  z.string().check((ctx) => {
    const problem = describeDomainProblem(ctx.value, wildcard);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });

const TLD = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);

export const topLevelDomain = () =>
  z.string().check((ctx) => {
    const value = ctx.value;
    let problem: string | undefined;
    if (value.startsWith('.')) problem = `must not start with a dot (write "${value.slice(1)}")`;
    else if (value !== value.toLowerCase()) problem = `must be lowercase (write "${value.toLowerCase()}")`;
    else if (!TLD.test(value)) problem = 'is not a valid top-level domain';
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: value });
  });

/** A crawl path pattern: a regular expression the linear-time engine compiles (path-patterns.ts). */
export const pathPattern = () =>
  z.string().check((ctx) => {
    const problem = pathPatternProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });

/** A header name as HTTP defines it (RFC 9110 §5.6.2, a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value may hold, as Node sends it: tab, visible ASCII, space and Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers that frame the message or govern the connection: the engine sets them, never a client. */
export const FRAMING_HEADERS = ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer'] as const;

/** Why a header cannot be sent as given, in plain words; the value is never quoted (it may be a secret). */
function headerProblem(name: string, value: string, reserved: readonly string[]): string | undefined {
  if (!HEADER_NAME.test(name)) return "is not a valid header name: only letters, digits and !#$%&'*+-.^_`|~ may appear in one, without spaces";
  if (reserved.includes(name.toLowerCase())) return 'is set by webwatch for each request and cannot be given';
  if (HEADER_VALUE.test(value)) return undefined;
  const bad = [...value].find((character) => !HEADER_VALUE.test(character))!;
  const code = `U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  if (bad === '\r' || bad === '\n') return `has a line break (${code}) in its value, which would end the header there`;
  return `has a character a header cannot carry in its value (${code})`;
}

/**
 * An object of any keys whose values are `value`, as `z.record(z.string(), value)` accepts, but
 * published in JSON Schema without `propertyNames` (a record's `{type: "string"}`, which says
 * nothing: keys are strings), a construct that some assistants refuse in MCP tool schemas.
 */
export const stringKeyed = <T extends z.core.SomeType>(value: T) => z.object({}).catchall(value);

/**
 * Headers a client has sent with a request or a webhook: each must be one HTTP can carry, so that
 * a bad one is refused when given (400, or a validation error naming it), not when every request
 * or delivery fails later.
 */
export const headerFields = (reserved: readonly string[]) =>
  stringKeyed(z.string()).check((ctx) => {
    for (const [name, value] of Object.entries(ctx.value)) {
      const problem = headerProblem(name, value, reserved);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, path: [name], input: name });
    }
  });

export const nonEmptyString = () => z.string().min(1);
