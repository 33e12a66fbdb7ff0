/**
 * Pattern detectors for PII in text: exact ones (e-mail, phone, card numbers with the Luhn
 * check, IBANs with their checksum, API keys and tokens, private key blocks, JWTs) and the
 * simple person and location heuristics of the `fast` mode.
 */

export const PII_ENTITY_NAMES = ['PERSON', 'EMAIL', 'PHONE', 'LOCATION', 'FINANCIAL', 'SECRET'] as const;
export type PiiEntity = (typeof PII_ENTITY_NAMES)[number];

export interface PiiSpan {
  start: number;
  end: number;
  entity: PiiEntity;
}

function* matches(text: string, pattern: RegExp): Generator<RegExpExecArray> {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  for (let match = global.exec(text); match; match = global.exec(text)) {
    yield match;
    if (match[0] === '') global.lastIndex++;
  }
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** ISO 13616: move the first four characters to the end, letters to numbers, mod 97 is 1. */
export function ibanValid(iban: string): boolean {
  const compact = iban.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
/** International (+CC ...) or grouped national numbers: 7 to 15 digits with separators. */
const PHONE = /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,4}){1,4}(?![\w])/;
const CARD = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/;
const PRIVATE_KEY = /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z]+ )*PRIVATE KEY-----/;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/;
const TOKENS = [
  /\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{20,}/, // OpenAI-style and Stripe secret keys
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{36,}/, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{40,}/,
  /\bAKIA[0-9A-Z]{16}\b/, // AWS access key id
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/, // Slack
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API key
  /\bglpat-[A-Za-z0-9_-]{20,}/, // GitLab
];
/** `api_key = ...`, `password: ...`, `Authorization: Bearer ...`: the value only. */
const ASSIGNED_SECRET =
  /\b(?:api[_-]?key|secret|token|password|passwd|access[_-]?key|client[_-]?secret|bearer)\b["']?\s*[:=]?\s*(?:bearer\s+)?["']?([A-Za-z0-9._~+/=-]{12,})/i;

const HONORIFIC_NAME = /\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Herr|Frau|Mme|Mlle|M)\.?\s+[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){0,2}/;
const STREET_ADDRESS =
  /\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Square|Sq|Terrace|Close|Crescent)\b\.?/;

export function exactSpans(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  const add = (start: number, end: number, entity: PiiEntity) => spans.push({ start, end, entity });
  for (const m of matches(text, PRIVATE_KEY)) add(m.index, m.index + m[0].length, 'SECRET');
  for (const m of matches(text, JWT)) add(m.index, m.index + m[0].length, 'SECRET');
  for (const pattern of TOKENS) for (const m of matches(text, pattern)) add(m.index, m.index + m[0].length, 'SECRET');
  for (const m of matches(text, ASSIGNED_SECRET)) {
    const value = m[1]!;
    const start = m.index + m[0].lastIndexOf(value);
    add(start, start + value.length, 'SECRET');
  }
  for (const m of matches(text, EMAIL)) add(m.index, m.index + m[0].length, 'EMAIL');
  for (const m of matches(text, CARD)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) add(m.index, m.index + m[0].length, 'FINANCIAL');
  }
  for (const m of matches(text, IBAN)) if (ibanValid(m[0])) add(m.index, m.index + m[0].length, 'FINANCIAL');
  for (const m of matches(text, PHONE)) {
    const digits = m[0].replace(/\D/g, '');
    // Dates and years look like short digit groups: a phone number has 7 to 15 digits.
    if (digits.length >= 7 && digits.length <= 15 && !/^\d{4}-\d{2}-\d{2}$/.test(m[0])) add(m.index, m.index + m[0].length, 'PHONE');
  }
  return spans;
}

export function heuristicSpans(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of matches(text, HONORIFIC_NAME)) spans.push({ start: m.index, end: m.index + m[0].length, entity: 'PERSON' });
  for (const m of matches(text, STREET_ADDRESS)) spans.push({ start: m.index, end: m.index + m[0].length, entity: 'LOCATION' });
  return spans;
}
