/**
 * The product format: the page's schema.org Product (or ProductGroup) and its Offers first;
 * a model only for what the page does not state (brand, category, description), or for the
 * whole product when the page states none. `fieldSources` says where each field came from.
 */
import type { ChatModel } from '../llm/chat.js';
import { extractJson, type PageText } from './model-formats.js';
import { absolute, amountOf, formattedPrice, nodes, ofType, text, values, type DataSource, type SchemaNode } from './structured-data.js';

export type { Price, ProductProfile, ProductVariant } from '../../contract/scrape.js';
import type { Price, ProductProfile, ProductVariant } from '../../contract/scrape.js';

/** schema.org availability values that mean it can be bought now. */
const IN_STOCK = new Set(['InStock', 'LimitedAvailability', 'OnlineOnly', 'InStoreOnly']);

export function availabilityOf(value: string | undefined): { inStock: boolean; text: string } | undefined {
  if (!value) return undefined;
  const name = value.replace(/^.*[/#:]/, '');
  return { inStock: IN_STOCK.has(name), text: name.replace(/([a-z])([A-Z])/g, '$1 $2') };
}

function priceOf(offer: Record<string, unknown>, product: Record<string, unknown>): Price | undefined {
  const spec = nodes(offer, 'priceSpecification')[0];
  const amount = amountOf(text(offer, 'price') ?? text(offer, 'lowPrice') ?? (spec && text(spec, 'price')));
  if (amount === undefined) return undefined;
  const currency = text(offer, 'priceCurrency') ?? (spec && text(spec, 'priceCurrency')) ?? text(product, 'priceCurrency');
  return { amount, ...(currency && { currency }), formatted: formattedPrice(amount, currency) };
}

/** A struck-through or list price stated beside the selling price: the price before the sale. */
function originalPriceOf(offer: Record<string, unknown>, current: Price | undefined): Price | undefined {
  for (const spec of nodes(offer, 'priceSpecification')) {
    const kind = text(spec, 'priceType') ?? '';
    const amount = amountOf(text(spec, 'price'));
    if (amount === undefined || !/StrikethroughPrice|ListPrice|MSRP/i.test(kind) || amount === current?.amount) continue;
    const currency = text(spec, 'priceCurrency') ?? current?.currency;
    return { amount, ...(currency && { currency }), formatted: formattedPrice(amount, currency) };
  }
  return undefined;
}

function imagesOf(node: Record<string, unknown>, base: string): { url: string }[] {
  return values(node, 'image')
    .map((image) =>
      absolute(
        typeof image === 'string' ? image : (text(image as Record<string, unknown>, 'url') ?? text(image as Record<string, unknown>, 'contentUrl')),
        base,
      ),
    )
    .filter((url): url is string => url !== undefined)
    .map((url) => ({ url }));
}

function variantsOf(product: Record<string, unknown>, base: string): { variants: ProductVariant[]; availabilityStated: boolean } {
  let availabilityStated = true;
  const variant = (node: Record<string, unknown>, offer: Record<string, unknown> | undefined): ProductVariant => {
    const price = offer && priceOf(offer, node);
    const original = offer && originalPriceOf(offer, price);
    const availability = availabilityOf(offer && text(offer, 'availability'));
    if (!availability) availabilityStated = false;
    const images = imagesOf(node, base);
    const sku = (offer && text(offer, 'sku')) ?? text(node, 'sku');
    const id = text(node, 'productID') ?? text(node, 'gtin13') ?? text(node, 'gtin') ?? (typeof node['@id'] === 'string' ? node['@id'] : undefined);
    const title = node === product ? undefined : text(node, 'name');
    return {
      ...(id && { id }),
      ...(sku && { sku }),
      ...(title && { title }),
      ...(price && { price }),
      ...(original && { sale: { originalPrice: original } }),
      availability: availability ?? { inStock: false, text: 'not stated by the page' },
      ...(images.length > 0 && { images }),
    };
  };
  const members = nodes(product, 'hasVariant');
  const sources = members.length > 0 ? members : [product];
  const variants = sources.flatMap((node) => {
    const offers = nodes(node, 'offers').flatMap((offer) => (nodes(offer, 'offers').length > 0 ? nodes(offer, 'offers') : [offer]));
    return offers.length > 0 ? offers.map((offer) => variant(node, offer)) : [variant(node, undefined)];
  });
  return { variants, availabilityStated };
}

/** The product the page states, if any: the first Product or ProductGroup of its schema.org data. */
export function productFromPage(found: readonly SchemaNode[], pageUrl: string): ProductProfile | undefined {
  const item = ofType(found, 'ProductGroup', 'Product')[0];
  if (!item) return undefined;
  const { node, source } = item;
  const title = text(node, 'name');
  if (!title) return undefined;
  const from = (field: string, present: unknown, sources: Record<string, string>, where: DataSource = source) => {
    if (present !== undefined) sources[field] = where;
  };
  const fieldSources: Record<string, string> = {};
  const brand = text(node, 'brand') ?? text(node, 'manufacturer');
  const category = text(node, 'category');
  const description = text(node, 'description');
  const url = absolute(text(node, 'url'), pageUrl) ?? pageUrl;
  const { variants, availabilityStated } = variantsOf(node, pageUrl);
  for (const [field, value] of Object.entries({ title, brand, category, description, variants })) from(field, value, fieldSources);
  fieldSources.url = text(node, 'url') ? source : 'page address';
  if (!availabilityStated) fieldSources['variants[].availability'] = 'not stated by the page';
  return { title, ...(brand && { brand }), ...(category && { category }), url, ...(description && { description }), variants, fieldSources };
}

const FILLABLE = ['brand', 'category', 'description'] as const;

const PRODUCT_SCHEMA = {
  type: 'object',
  required: ['title', 'variants'],
  properties: {
    title: { type: 'string', minLength: 1 },
    brand: { type: 'string' },
    category: { type: 'string' },
    description: { type: 'string' },
    variants: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['availability'],
        properties: {
          sku: { type: 'string' },
          title: { type: 'string' },
          price: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } } },
          availability: { type: 'object', required: ['inStock'], properties: { inStock: { type: 'boolean' }, text: { type: 'string' } } },
        },
      },
    },
  },
};

/**
 * The product: the page's own data, with the fields it leaves out asked of the model when there
 * is one; the whole product asked of the model when the page states none. Undefined when the
 * page states none and there is no model (the caller says so).
 */
export async function readProduct(
  found: readonly SchemaNode[],
  page: PageText,
  model: ChatModel | undefined,
  signal?: AbortSignal,
): Promise<ProductProfile | undefined> {
  const stated = productFromPage(found, page.url);
  if (stated) {
    const missing = FILLABLE.filter((field) => stated[field] === undefined);
    if (!model || missing.length === 0) return stated;
    const schema = { type: 'object', properties: Object.fromEntries(missing.map((field) => [field, { type: 'string' }])) };
    const filled = (await extractJson(
      model,
      page,
      {
        prompt: `The product on this page is ${JSON.stringify(stated.title)}. Give only these of its fields, as the page's text states them: ${missing.join(', ')}. Leave out any the page does not state.`,
        schema,
      },
      { ...(signal && { signal }) },
    )) as Record<string, unknown>;
    const product = { ...stated, fieldSources: { ...stated.fieldSources } };
    for (const field of missing) {
      const value = filled[field];
      if (typeof value === 'string' && value.trim()) {
        product[field] = value.trim();
        product.fieldSources[field] = 'model';
      }
    }
    return product;
  }
  if (!model) return undefined;
  const answer = (await extractJson(
    model,
    page,
    {
      prompt:
        'Read the product this page sells: its title, brand, category, description and each variant with its price (amount as a number, ISO 4217 currency code) and availability.',
      schema: PRODUCT_SCHEMA,
    },
    { ...(signal && { signal }) },
  )) as Omit<ProductProfile, 'url' | 'fieldSources'>;
  // Only the fields of the schema: whatever else the model adds is dropped.
  const variants = answer.variants.map(
    ({ sku, title, price, availability }): ProductVariant => ({
      ...(sku && { sku }),
      ...(title && { title }),
      ...(price && {
        price: { amount: price.amount, ...(price.currency && { currency: price.currency }), formatted: formattedPrice(price.amount, price.currency) },
      }),
      availability: { inStock: availability.inStock, ...(availability.text && { text: availability.text }) },
    }),
  );
  const { title, brand, category, description } = answer;
  const fields = { title, ...(brand && { brand }), ...(category && { category }), ...(description && { description }) };
  const fieldSources = Object.fromEntries([...Object.keys(fields), 'variants'].map((field) => [field, 'model']));
  return { ...fields, url: page.url, variants, fieldSources: { ...fieldSources, url: 'page address' } };
}
