/**
 * What a request's formats ask of the extraction step, read from the options alone (light: no
 * model client, no parser): which formats need a model whatever the page says, which may need
 * one, and the changeTracking format's settings.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { Format, ScrapeOptions } from '../../spec/scrape-options.js';

/** Formats whose content a model writes, whatever the page says. */
const MODEL_FORMATS = ['summary', 'json', 'question', 'highlights'] as const;
/** Formats the page itself may state (schema.org data); a model only fills what it does not. */
const PAGE_FIRST_FORMATS = ['product', 'menu'] as const;

export const MODEL_NOT_CONFIGURED_CODE = 'MODEL_NOT_CONFIGURED';

const typeOf = (format: Format) => (typeof format === 'string' ? format : format.type);

export function formatOf<T extends string>(options: ScrapeOptions, type: T): Extract<Format, { type: T }> | T | undefined {
  return (options.formats ?? []).find((format) => typeOf(format) === type) as Extract<Format, { type: T }> | T | undefined;
}

export interface TrackingSettings {
  tag: string;
  /** Line diffs of the markdown (the default, alone or with json). */
  gitDiff: boolean;
  /** Field diffs of JSON extracted with the format's prompt and schema. */
  json: boolean;
  prompt?: string;
  schema?: Record<string, unknown>;
}

/** The changeTracking format's settings, when it is asked for. */
export function trackingSettings(options: ScrapeOptions): TrackingSettings | undefined {
  const format = formatOf(options, 'changeTracking');
  if (format === undefined) return undefined;
  if (typeof format === 'string') return { tag: '', gitDiff: true, json: false };
  const modes = format.modes && format.modes.length > 0 ? format.modes : ['git-diff'];
  return {
    tag: format.tag ?? '',
    gitDiff: modes.includes('git-diff'),
    json: modes.includes('json'),
    ...(format.prompt !== undefined && { prompt: format.prompt }),
    ...(format.schema !== undefined && { schema: format.schema }),
  };
}

/** Whether the request extracts JSON (the json format, or changeTracking in json mode): what monitor checks compare then. */
export function extractsJson(options: ScrapeOptions): boolean {
  return formatOf(options, 'json') !== undefined || trackingSettings(options)?.json === true;
}

/** What in the request needs a model in any case, in the user's words. */
export function modelNeeds(options: ScrapeOptions): string[] {
  const needs: string[] = MODEL_FORMATS.filter((type) => formatOf(options, type) !== undefined).map((type) => `the ${type} format`);
  if (trackingSettings(options)?.json) needs.push('changeTracking in json mode');
  if (options.onlyCleanContent) needs.push('onlyCleanContent');
  return needs;
}

/** Whether the extraction step has anything to do for this request. */
export function extractionWanted(options: ScrapeOptions): boolean {
  return (
    modelNeeds(options).length > 0 || PAGE_FIRST_FORMATS.some((type) => formatOf(options, type) !== undefined) || formatOf(options, 'branding') !== undefined
  );
}

export const MODEL_SETUP =
  'set llm.baseUrl and llm.model in the config (any OpenAI-compatible server: Ollama, llama.cpp, vLLM or a hosted API), and WEBWATCH_LLM_API_KEY if it needs a key';

/** The error of a request that needs a model where none is configured: it says how to configure one. */
export function modelNotConfigured(what: readonly string[], reason?: string): WebwatchError {
  return new WebwatchError(
    `${what.join(', ')} ${what.length > 1 ? 'need' : 'needs'} a language model${reason ? ` (${reason})` : ''}, and none is configured: ${MODEL_SETUP}`,
    {
      status: 400,
      exitCode: EXIT.usage,
      code: MODEL_NOT_CONFIGURED_CODE,
      details: { needs: what },
      suggestion: 'see "Model formats" in docs/models.md for an example with Ollama',
    },
  );
}
