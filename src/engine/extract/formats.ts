/**
 * The extraction step of a scrape, after conversion: the onlyCleanContent pass, the model
 * formats (summary, json, question, highlights, changeTracking's json), product and menu from
 * the page's schema.org data first, and branding from the rendered page's styles. Loaded only
 * when a request asks for one of them.
 */
import { withoutControls, withoutControlsDeep } from '../content/control-characters.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import type { BrandingSample } from '../browser/branding-probe.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import { chatModel, type ChatModel, type LlmSettings } from '../llm/chat.js';
import { brandingProfile, type BrandingProfile } from './branding.js';
import { readMenu } from './menu.js';
import { answerQuestion, checkPromptInjection, cleanContent, extractJson, selectHighlights, summarize, type PageText } from './model-formats.js';
import { formatOf, modelNeeds, modelNotConfigured, trackingSettings } from './needs.js';
import { readProduct } from './product.js';
import { schemaOrgNodes, type SchemaNode } from './structured-data.js';

export interface ExtractionInput {
  url: string;
  markdown: string;
  /** The page's HTML, for its schema.org data (undefined for other content types). */
  html?: string;
  metadata: { title?: string; ogSiteName?: string; favicon?: string; ogImage?: string };
  /** The rendered page's style sample, when branding was asked for. */
  branding?: BrandingSample;
}

export interface ExtractionContext {
  llm?: LlmSettings;
  signal?: AbortSignal;
}

/** The document's fields these formats fill, as the document types them. */
export interface Extracted extends Pick<ScrapeDocument, 'summary' | 'json' | 'answer' | 'highlights' | 'product' | 'menu' | 'branding'> {
  /** The markdown after the onlyCleanContent pass (the original when it did not run). */
  markdown: string;
  /** What changeTracking's json mode compares. */
  trackedJson?: unknown;
  warnings: string[];
}

// One client per settings (a backend's life), not per scrape.
const clients = new WeakMap<LlmSettings, Promise<ChatModel>>();
function modelFor(settings: LlmSettings): Promise<ChatModel> {
  let client = clients.get(settings);
  if (!client) {
    client = chatModel(settings);
    clients.set(settings, client);
  }
  return client;
}

export async function extractFormats(options: ScrapeOptions, input: ExtractionInput, context: ExtractionContext): Promise<Extracted> {
  const needs = modelNeeds(options);
  if (needs.length > 0 && !context.llm) throw modelNotConfigured(needs);
  const model = context.llm ? await modelFor(context.llm) : undefined;
  const chat = context.signal ? { signal: context.signal } : {};
  const warnings: string[] = [];
  let markdown = input.markdown;
  if (options.onlyCleanContent && model) {
    const cleaned = await cleanContent(model, { url: input.url, markdown }, chat);
    markdown = cleaned.markdown;
    if (cleaned.warning) warnings.push(cleaned.warning);
  }
  const page: PageText = { url: input.url, markdown };
  const json = formatOf(options, 'json');
  const jsonRequest = json === undefined ? undefined : typeof json === 'string' ? {} : json;
  // The scan comes before any extraction: a page caught by it reaches no other prompt.
  if (jsonRequest && typeof jsonRequest === 'object' && 'checkPromptInjection' in jsonRequest && jsonRequest.checkPromptInjection) {
    await checkPromptInjection(model!, page, chat);
  }
  const tracking = trackingSettings(options);
  const question = formatOf(options, 'question');
  const highlights = formatOf(options, 'highlights');
  let found: SchemaNode[] | undefined;
  const structured = () => (found ??= input.html ? schemaOrgNodes(input.html, input.url) : []);

  const jsonResult = jsonRequest ? extractJson(model!, page, requestOf(jsonRequest), chat) : undefined;
  // changeTracking's json mode reuses the json format's answer when it asks nothing of its own.
  const trackedResult = tracking?.json
    ? tracking.prompt === undefined && tracking.schema === undefined && jsonResult
      ? jsonResult
      : extractJson(
          model!,
          page,
          { ...(tracking.prompt !== undefined && { prompt: tracking.prompt }), ...(tracking.schema && { schema: tracking.schema }) },
          chat,
        )
    : undefined;
  const [summary, extracted, tracked, answer, selected, product, menu] = await Promise.all([
    formatOf(options, 'summary') !== undefined ? summarize(model!, page, chat) : undefined,
    jsonResult,
    trackedResult,
    question && typeof question === 'object' ? answerQuestion(model!, page, question.question, chat) : undefined,
    highlights && typeof highlights === 'object' ? selectHighlights(model!, page, highlights.query, chat) : undefined,
    formatOf(options, 'product') !== undefined ? productOf(structured(), page, model, context.signal) : undefined,
    formatOf(options, 'menu') !== undefined
      ? menuOf(structured(), { ...page, ...(input.metadata.title && { title: input.metadata.title }) }, model, context.signal)
      : undefined,
  ]);
  let branding: BrandingProfile | undefined;
  if (formatOf(options, 'branding') !== undefined) {
    if (!input.branding)
      throw new WebwatchError('the branding format needs the page rendered by the browser, and it was not', { status: 500, code: 'SCRAPE_BRANDING_FAILED' });
    branding = brandingProfile({
      sample: input.branding,
      pageUrl: input.url,
      ...input.metadata,
      ...(input.metadata.ogSiteName && { siteName: input.metadata.ogSiteName }),
    });
  }
  // A model's words can repeat the page's control characters: they go, as from the page itself.
  return {
    markdown,
    ...(summary !== undefined && { summary: withoutControls(summary) }),
    ...(jsonResult && { json: withoutControlsDeep(extracted) }),
    ...(answer !== undefined && { answer: withoutControls(answer) }),
    ...(selected !== undefined && { highlights: withoutControls(selected) }),
    ...(product && { product }),
    ...(menu && { menu }),
    ...(branding && { branding }),
    ...(trackedResult && { trackedJson: tracked }),
    warnings,
  };
}

function requestOf(format: { prompt?: string; schema?: Record<string, unknown> }) {
  return { ...(format.prompt !== undefined && { prompt: format.prompt }), ...(format.schema && { schema: format.schema }) };
}

async function productOf(found: SchemaNode[], page: PageText, model: ChatModel | undefined, signal?: AbortSignal) {
  const product = await readProduct(found, page, model, signal);
  if (!product) throw modelNotConfigured(['the product format'], 'this page states no schema.org Product data to read it from');
  return product;
}

async function menuOf(found: SchemaNode[], page: PageText & { title?: string }, model: ChatModel | undefined, signal?: AbortSignal) {
  const menu = await readMenu(found, page, model, signal);
  if (!menu) throw modelNotConfigured(['the menu format'], 'this page states no schema.org Menu data to read it from');
  return menu;
}
