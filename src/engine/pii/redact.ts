/**
 * PII redaction of the returned markdown (spec 2.7 redactPII). `fast`: pattern heuristics;
 * `accurate`: a natural-language model (compromise, shipped in its npm package, no download)
 * for PERSON and LOCATION plus the exact patterns; `aggressive`: both.
 */
import { exactSpans, heuristicSpans, PII_ENTITY_NAMES, type PiiEntity, type PiiSpan } from './patterns.js';

export interface RedactOptions {
  mode?: 'accurate' | 'aggressive' | 'fast' | undefined;
  entities?: readonly PiiEntity[] | undefined;
  replaceStyle?: 'tag' | 'mask' | 'remove' | undefined;
}

/** PERSON and LOCATION found by compromise; loaded only when a model mode asks for it. */
async function modelSpans(text: string): Promise<PiiSpan[]> {
  const { default: nlp } = await import('compromise');
  const doc = nlp(text);
  const spans: PiiSpan[] = [];
  const collect = (found: { text: string; offset: { start: number; length: number } }[], entity: PiiEntity) => {
    for (const match of found) {
      // compromise counts trailing punctuation into a term.
      const trimmed = match.text.replace(/[\s.,;:!?'"’)\]]+$/u, '');
      if (trimmed.length > 1) spans.push({ start: match.offset.start, end: match.offset.start + trimmed.length, entity });
    }
  };
  collect(doc.people().out('offset') as never, 'PERSON');
  collect(doc.places().out('offset') as never, 'LOCATION');
  return spans;
}

/** Overlapping spans merge into the longest; ties go to the earlier. */
function resolveOverlaps(spans: PiiSpan[]): PiiSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: PiiSpan[] = [];
  for (const span of sorted) {
    const last = kept[kept.length - 1];
    if (last && span.start < last.end) {
      if (span.end - span.start > last.end - last.start) kept[kept.length - 1] = span;
      continue;
    }
    kept.push(span);
  }
  return kept;
}

function replacement(original: string, entity: PiiEntity, style: RedactOptions['replaceStyle']): string {
  if (style === 'remove') return '';
  if (style === 'mask') return original.replace(/\S/g, '*');
  return `<${entity}>`;
}

export async function redactPii(text: string, options: RedactOptions = {}): Promise<string> {
  const mode = options.mode ?? 'accurate';
  const wanted = new Set<PiiEntity>(options.entities ?? PII_ENTITY_NAMES);
  const spans = exactSpans(text);
  if (mode === 'fast' || mode === 'aggressive') spans.push(...heuristicSpans(text));
  if ((mode === 'accurate' || mode === 'aggressive') && (wanted.has('PERSON') || wanted.has('LOCATION'))) {
    spans.push(...(await modelSpans(text)));
  }
  const chosen = resolveOverlaps(spans.filter((span) => wanted.has(span.entity)));
  let result = '';
  let cursor = 0;
  for (const span of chosen) {
    result += text.slice(cursor, span.start) + replacement(text.slice(span.start, span.end), span.entity, options.replaceStyle);
    cursor = span.end;
  }
  return result + text.slice(cursor);
}
