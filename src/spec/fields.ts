/**
 * Building blocks shared by the schemas: closed objects with "did you mean" hints for unknown
 * keys, http(s) URLs, domain names and crawl path patterns, each failing with a plain message.
 */
import { z } from 'zod';
import './zod-settings.js';
import { pathPatternProblem } from './path-patterns.js';
import { didYouMean } from './suggest.js';

/**
 * `file` validates definition files: every object is closed, so a typo is an error.
 * `wire` validates API requests: only the objects the spec closes reject unknown keys.
 */
export type SchemaMode = 'file' | 'wire';

/** One line per unknown key, in the order of `keys`; the issue formatter splits them. */
export function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  return keys.map((key) => `unknown field "${key}"${didYouMean(key, known)}`).join('\n');
}

export function closedObject<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, known) : undefined,
  });
}

/** An object closed in definition files and open (unknown keys dropped) on the wire. */
export function modeObject<T extends z.ZodRawShape>(mode: SchemaMode, shape: T) {
  return mode === 'file' ? closedObject(shape) : z.object(shape);
}

export function describeHttpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return /^[a-z][a-z0-9+.-]*:/i.test(value)
      ? 'is not a valid URL'
      : 'must be an absolute URL starting with http:// or https://';
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
  if (value.includes('://')) return 'must be a domain name without a protocol (drop "' + value.split('://')[0] + '://")';
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

export const nonEmptyString = () => z.string().min(1);
