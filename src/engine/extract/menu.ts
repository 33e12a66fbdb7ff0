/**
 * The menu format: the page's schema.org Menu (MenuSection, MenuItem with Offers, diets and
 * nutrition), found alone or through a FoodEstablishment's hasMenu; a model reads the menu
 * only when the page states none. `fieldSources` says where the menu came from.
 */
import type { ChatModel } from '../llm/chat.js';
import { extractJson, type PageText } from './model-formats.js';
import { availabilityOf } from './product.js';
import { absolute, amountOf, formattedPrice, nodes, ofType, text, values, type SchemaNode } from './structured-data.js';

export type { MenuItem, MenuProfile, MenuSection } from '../../contract/scrape.js';
import type { MenuItem, MenuProfile, MenuSection } from '../../contract/scrape.js';

/** `https://schema.org/VeganDiet` is `vegan`; `GlutenFreeDiet` is `gluten free`. */
const dietOf = (value: string) =>
  value
    .replace(/^.*[/#:]/, '')
    .replace(/Diet$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();

function itemOf(node: Record<string, unknown>, id: string, pageUrl: string): MenuItem {
  const offer = nodes(node, 'offers')[0];
  const amount = offer ? amountOf(text(offer, 'price')) : undefined;
  const currency = offer ? text(offer, 'priceCurrency') : undefined;
  const calories = amountOf(nodes(node, 'nutrition')[0] && text(nodes(node, 'nutrition')[0]!, 'calories'));
  const merchantItemId = text(node, 'identifier') ?? text(node, 'sku') ?? (offer && text(offer, 'sku'));
  const url = absolute(text(node, 'url'), pageUrl);
  const description = text(node, 'description');
  const images = values(node, 'image')
    .map((image) => absolute(typeof image === 'string' ? image : text(image as Record<string, unknown>, 'url'), pageUrl))
    .filter((u): u is string => !!u)
    .map((u) => ({ url: u }));
  return {
    id,
    name: text(node, 'name') ?? '',
    ...(description && { description }),
    images,
    ...(amount !== undefined && { price: { amount, ...(currency && { currency }), formatted: formattedPrice(amount, currency) } }),
    availability: availabilityOf(offer && text(offer, 'availability')) ?? { inStock: true, text: 'listed on the menu' },
    dietary: values(node, 'suitableForDiet')
      .map((diet) => (typeof diet === 'string' ? diet : (text(diet as Record<string, unknown>, '@id') ?? '')))
      .filter(Boolean)
      .map(dietOf),
    ...(calories !== undefined && { calories }),
    optionGroups: nodes(node, 'menuAddOn').map((addOn) => ({
      name: text(addOn, 'name'),
      items: nodes(addOn, 'hasMenuItem').map((item) => text(item, 'name')),
    })),
    identifiers: merchantItemId ? { merchantItemId } : {},
    ...(url && { url }),
    sourceUrl: pageUrl,
  };
}

function sectionsOf(menu: Record<string, unknown>, pageUrl: string): MenuSection[] {
  const sections: MenuSection[] = [];
  const add = (node: Record<string, unknown>, fallbackName: string) => {
    const index = sections.length + 1;
    const items = nodes(node, 'hasMenuItem')
      .map((item, position) => itemOf(item, `s${index}-i${position + 1}`, pageUrl))
      .filter((item) => item.name);
    const description = text(node, 'description');
    if (items.length > 0) sections.push({ id: `s${index}`, name: text(node, 'name') ?? fallbackName, ...(description && { description }), items });
    for (const inner of nodes(node, 'hasMenuSection')) add(inner, fallbackName);
  };
  // Items straight on the menu form a section of their own, named after the menu.
  const direct = nodes(menu, 'hasMenuItem');
  if (direct.length > 0) add({ name: text(menu, 'name') ?? 'Menu', hasMenuItem: direct }, 'Menu');
  for (const section of nodes(menu, 'hasMenuSection')) add(section, 'Menu');
  return sections;
}

export function menuFromPage(found: readonly SchemaNode[], pageUrl: string, pageTitle: string | undefined): MenuProfile | undefined {
  const establishment = found.find((item) => nodes(item.node, 'hasMenu').length > 0);
  const menuItem = establishment ? { node: nodes(establishment.node, 'hasMenu')[0]!, source: establishment.source } : ofType(found, 'Menu')[0];
  if (!menuItem) return undefined;
  const sections = sectionsOf(menuItem.node, pageUrl);
  if (sections.length === 0) return undefined;
  const currency = sections.flatMap((section) => section.items).find((item) => item.price?.currency)?.price?.currency ?? null;
  const merchantNode = establishment?.node ?? nodes(menuItem.node, 'provider')[0];
  const address = merchantNode && nodes(merchantNode, 'address')[0];
  const merchantType = establishment?.types[0] ?? null;
  return {
    isMenu: true,
    confidence: 1,
    merchant: {
      name: (merchantNode && text(merchantNode, 'name')) ?? pageTitle ?? new URL(pageUrl).hostname,
      type: merchantType,
      ...(address && {
        location: {
          street: text(address, 'streetAddress'),
          city: text(address, 'addressLocality'),
          postalCode: text(address, 'postalCode'),
          country: text(address, 'addressCountry'),
        },
      }),
    },
    currency,
    sections,
    sourceUrl: pageUrl,
    fieldSources: { sections: menuItem.source, merchant: merchantNode ? menuItem.source : 'page metadata', currency: menuItem.source },
  };
}

const MENU_SCHEMA = {
  type: 'object',
  required: ['isMenu', 'merchantName', 'sections'],
  properties: {
    isMenu: { type: 'boolean' },
    merchantName: { type: 'string' },
    currency: { type: ['string', 'null'] },
    sections: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'items'],
        properties: {
          name: { type: 'string' },
          items: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string', minLength: 1 },
                description: { type: 'string' },
                price: { type: ['number', 'null'] },
                dietary: { type: 'array', items: { type: 'string' } },
                calories: { type: ['number', 'null'] },
              },
            },
          },
        },
      },
    },
  },
};

interface ModelMenu {
  isMenu: boolean;
  merchantName: string;
  currency?: string | null;
  sections: { name: string; items: { name: string; description?: string; price?: number | null; dietary?: string[]; calories?: number | null }[] }[];
}

/** The menu: the page's own data, else the model's reading; undefined when neither can say. */
export async function readMenu(
  found: readonly SchemaNode[],
  page: PageText & { title?: string },
  model: ChatModel | undefined,
  signal?: AbortSignal,
): Promise<MenuProfile | undefined> {
  const stated = menuFromPage(found, page.url, page.title);
  if (stated || !model) return stated;
  const answer = (await extractJson(
    model,
    page,
    {
      prompt:
        'Read the menu of food or drinks this page shows, if it shows one: its merchant, currency (ISO 4217 code) and sections with their items (name, description, price as a number, dietary labels, calories). If the page shows no menu, answer with isMenu false and no sections.',
      schema: MENU_SCHEMA,
    },
    { ...(signal && { signal }) },
  )) as ModelMenu;
  const currency = answer.currency ?? null;
  return {
    isMenu: answer.isMenu,
    // A model's reading is less sure than the page's own data.
    confidence: answer.isMenu ? 0.6 : 0.2,
    merchant: { name: answer.merchantName, type: null },
    currency,
    sections: answer.sections.map((section, s) => ({
      id: `s${s + 1}`,
      name: section.name,
      items: section.items.map((item, i) => ({
        id: `s${s + 1}-i${i + 1}`,
        name: item.name,
        ...(item.description && { description: item.description }),
        images: [],
        ...(typeof item.price === 'number' && {
          price: { amount: item.price, ...(currency && { currency }), formatted: formattedPrice(item.price, currency ?? undefined) },
        }),
        availability: { inStock: true, text: 'listed on the menu' },
        dietary: item.dietary ?? [],
        ...(typeof item.calories === 'number' && { calories: item.calories }),
        optionGroups: [],
        identifiers: {},
        sourceUrl: page.url,
      })),
    })),
    sourceUrl: page.url,
    fieldSources: { sections: 'model', merchant: 'model', currency: 'model' },
  };
}
