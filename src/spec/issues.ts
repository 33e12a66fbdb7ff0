/**
 * Turns zod issues and rule violations into located, plain-words problems:
 * `{path: ['targets', 0, 'scrapeOptions', 'timeout'], message: 'must be at most 300000 (got 400000)'}`.
 */
import type { z } from 'zod';
import { didYouMean } from './suggest.js';

export type PathSegment = string | number;

export interface Problem {
  path: PathSegment[];
  message: string;
}

/** `targets[0].scrapeOptions.timeout` */
export function formatPath(path: readonly PathSegment[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    const plain = /^[A-Za-z_$][\w$-]*$/.test(segment);
    if (!plain) return `${text}[${JSON.stringify(segment)}]`;
    return text === '' ? segment : `${text}.${segment}`;
  }, '');
}

/** Names whose values are secrets (webhookSecret, a password, an API key or token): never quoted. */
export const SECRET_NAME = /key|secret|passw|token|credential/i;

export interface DescribeOptions {
  /** The value is a secret (a key, a password): say what kind of value it is, never the value. */
  concealInput?: boolean;
}

function typeName(value: unknown, options: DescribeOptions = {}): string {
  if (options.concealInput) {
    if (typeof value === 'string') return 'text';
    if (typeof value === 'number' || typeof value === 'bigint') return 'a number';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return `${value}`;
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping of fields',
  record: 'a mapping of names to values',
  array: 'a list',
  null: 'null',
};

function sizeMessage(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, big: boolean, options: DescribeOptions): string {
  const limit = big ? (issue as z.core.$ZodIssueTooBig).maximum : (issue as z.core.$ZodIssueTooSmall).minimum;
  const bound = issue.inclusive === false ? (big ? 'less than' : 'more than') : big ? 'at most' : 'at least';
  const input = issue.input;
  switch (issue.origin) {
    case 'string': {
      if (!big && Number(limit) === 1) return 'must not be empty';
      const length = typeof input === 'string' ? ` (this one has ${input.length})` : '';
      return `must be ${bound} ${limit} characters long${length}`;
    }
    case 'array': {
      if (!big && Number(limit) === 1) return 'must list at least one item';
      const count = Array.isArray(input) ? ` (this one has ${input.length})` : '';
      return `must have ${bound} ${limit} items${count}`;
    }
    default: {
      const got = typeof input === 'number' && !options.concealInput ? ` (got ${input})` : '';
      return `must be ${bound} ${limit}${got}`;
    }
  }
}

/** One issue can stand for several problems: one per unknown key. */
export function describeIssue(issue: z.core.$ZodIssue, options: DescribeOptions = {}): Problem[] {
  const path = issue.path as PathSegment[];
  const at = (message: string, extra: PathSegment[] = []): Problem[] => [{ path: [...path, ...extra], message }];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const lines = issue.message.split('\n');
      return issue.keys.map((key, index) => ({
        path: [...path, key],
        message: lines.length === issue.keys.length ? lines[index]! : `unknown field "${key}"`,
      }));
    }
    case 'invalid_type': {
      if (issue.input === undefined) return at('is required');
      if (issue.message && !issue.message.startsWith('Invalid input')) return at(issue.message);
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      return at(`must be ${expected}, not ${typeName(issue.input, options)}`);
    }
    case 'too_big':
      return at(sizeMessage(issue, true, options));
    case 'too_small':
      return at(sizeMessage(issue, false, options));
    case 'invalid_value': {
      const values = issue.values.map((value) => String(value));
      if (values.length === 1) return at(`must be ${values[0]}`);
      const hint = typeof issue.input === 'string' ? didYouMean(issue.input, values) : '';
      return at(`must be one of ${values.join(', ')}${hint}`);
    }
    case 'invalid_union': {
      const union = issue as z.core.$ZodIssueInvalidUnion & { discriminator?: string; options?: unknown[]; note?: string };
      if (union.note === 'No matching discriminator' && union.discriminator) {
        const options = (union.options ?? []).map(String);
        const given = issue.input && typeof issue.input === 'object' ? (issue.input as Record<string, unknown>)[union.discriminator] : undefined;
        // zod puts the discriminator in the path already.
        const own = path[path.length - 1] === union.discriminator ? [] : [union.discriminator];
        if (given === undefined) return at(`is required: one of ${options.join(', ')}`, own);
        const hint = typeof given === 'string' ? didYouMean(given, options) : '';
        return at(`must be one of ${options.join(', ')}${hint}`, own);
      }
      // A plain union (text or mapping, true or mapping): report the branch whose type fits.
      const isObject = typeof issue.input === 'object' && issue.input !== null;
      const misfit = (i: z.core.$ZodIssue) => i.path.length === 0 && (i.code === 'invalid_type' || (i.code === 'invalid_value' && isObject));
      const fitting = union.errors.filter((branch) => !branch.some(misfit));
      if (fitting.length === 1) {
        return fitting[0]!.flatMap((branch) => describeIssue(branch, options)).map((p) => ({ path: [...path, ...p.path], message: p.message }));
      }
      return at(`must be one of the accepted forms, not ${typeName(issue.input, options)}`);
    }
    case 'invalid_format': {
      if (issue.message && !issue.message.startsWith('Invalid')) return at(issue.message);
      if (issue.format === 'regex') return at(`does not match the pattern ${(issue as { pattern?: string }).pattern ?? ''}`.trim());
      return at(`must be a valid ${issue.format}`);
    }
    case 'not_multiple_of':
      return at(`must be a multiple of ${issue.divisor}`);
    default:
      return at(issue.message);
  }
}
