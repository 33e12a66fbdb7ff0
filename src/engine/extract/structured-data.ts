/**
 * The schema.org data a page states about itself: JSON-LD, microdata and RDFa, read by
 * htmlmetaparser (an htmlparser2 handler made for exactly this) and flattened into typed nodes,
 * nested ones included (a Product inside a WebPage's mainEntity, a Menu inside a Restaurant).
 */
import { Handler } from 'htmlmetaparser';
import { Parser } from 'htmlparser2';

export type DataSource = 'JSON-LD' | 'microdata' | 'RDFa';

export interface SchemaNode {
  /** Local names of the node's types: `Product`, `Offer`... */
  types: string[];
  source: DataSource;
  node: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `https://schema.org/Product`, `schema:Product` and `Product` are all `Product`. */
export const localName = (type: string) => type.replace(/^.*[/#:]/, '');

export function typesOf(node: Record<string, unknown>): string[] {
  const type = node['@type'];
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string').map(localName);
}

/** Every value of a property, as a list (microdata and RDFa give lists, JSON-LD either). */
export function values(node: Record<string, unknown>, property: string): unknown[] {
  const value = node[property] ?? node[`schema:${property}`];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** A property as text: a string, a number, `@value` or `@id`, or a nested thing's name. */
export function text(node: Record<string, unknown>, property: string): string | undefined {
  for (const value of values(node, property)) {
    if (typeof value === 'string' && value.trim()) return value.replace(/\s+/g, ' ').trim();
    if (typeof value === 'number') return String(value);
    if (isRecord(value)) {
      const inner = value['@value'] ?? value.name ?? value['@id'];
      const flat = Array.isArray(inner) ? inner[0] : inner;
      if (typeof flat === 'string' && flat.trim()) return flat.trim();
      if (typeof flat === 'number') return String(flat);
    }
  }
  return undefined;
}

export function nodes(node: Record<string, unknown>, property: string): Record<string, unknown>[] {
  return values(node, property).filter(isRecord);
}

/**
 * What a page needs to state a typed schema.org node: a JSON-LD script, a microdata itemscope,
 * an RDFa typeof. Most pages have none, and then the parse (as slow as the page's whole
 * conversion to markdown: bench/structured-data.mjs) is skipped.
 */
const MAY_STATE_DATA = /application\/ld\+json|\bitemscope\b|\btypeof\s*=/i;

/** Every typed node of the page's schema.org data, in document order, nested ones after their parent. */
export function schemaOrgNodes(html: string, pageUrl: string): SchemaNode[] {
  if (!MAY_STATE_DATA.test(html)) return [];
  let result: { jsonld?: unknown[]; microdata?: unknown[]; rdfa?: unknown[] } | undefined;
  let failure: Error | null = null;
  const handler = new Handler(
    (error, parsed) => {
      failure = error;
      result = parsed as typeof result;
    },
    { url: pageUrl },
  );
  const parser = new Parser(handler, { decodeEntities: true });
  parser.write(html);
  parser.end();
  if (failure || !result) return [];
  const found: SchemaNode[] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown, source: DataSource, depth: number) => {
    // Deep enough for any real page; a hostile nesting is cut, never a stack overflow.
    if (depth > 32 || seen.has(value)) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, source, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    seen.add(value);
    const types = typesOf(value);
    if (types.length > 0) found.push({ types, source, node: value });
    for (const [key, inner] of Object.entries(value)) if (key !== '@context') walk(inner, source, depth + 1);
  };
  walk(result.jsonld ?? [], 'JSON-LD', 0);
  walk(result.microdata ?? [], 'microdata', 0);
  walk(result.rdfa ?? [], 'RDFa', 0);
  return found;
}

export function ofType(found: readonly SchemaNode[], ...types: string[]): SchemaNode[] {
  return found.filter((item) => item.types.some((type) => types.includes(type)));
}

/** A price: schema.org says a number (`12.50`), pages also write `$12.50` or `12,50`. */
export function amountOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const digits = value.replace(/[^\d.,-]/g, '');
  // A comma followed by exactly two digits at the end is a decimal comma (12,50); other commas group thousands.
  const normal = /,\d{2}$/.test(digits) && !/\.\d{2}$/.test(digits) ? digits.replace(/\./g, '').replace(',', '.') : digits.replace(/,/g, '');
  const amount = Number.parseFloat(normal);
  return Number.isFinite(amount) ? amount : undefined;
}

export function formattedPrice(amount: number, currency: string | undefined): string {
  if (currency && /^[A-Z]{3}$/.test(currency)) {
    try {
      return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
    } catch {
      // An unknown code: written plainly below.
    }
  }
  return currency ? `${amount} ${currency}` : String(amount);
}

export function absolute(url: string | undefined, base: string): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url, base).href;
  } catch {
    return undefined;
  }
}
