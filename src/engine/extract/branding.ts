/**
 * The branding format from the page alone, no model: colours, fonts and typography from the
 * computed styles the browser probe sampled (browser/branding-probe.ts), logo, favicon and
 * images from the markup and the page's metadata. `fieldSources` names where each part came from.
 */
import type { BrandingSample, StyleSample } from '../browser/branding-probe.js';
import type { BrandingProfile } from '../../contract/scrape.js';

export type { BrandingProfile } from '../../contract/scrape.js';

export interface BrandingInput {
  sample: BrandingSample;
  pageUrl: string;
  title?: string;
  siteName?: string;
  favicon?: string;
  ogImage?: string;
}

type Rgba = { r: number; g: number; b: number; a: number };

/** `rgb(…)`/`rgba(…)` (what computed styles give), `#rgb`/`#rrggbb`; undefined for anything else. */
export function parseColor(value: string | undefined): Rgba | undefined {
  if (!value) return undefined;
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/i.exec(value.trim());
  if (rgb) {
    const alpha = rgb[4] === undefined ? 1 : rgb[4].endsWith('%') ? Number.parseFloat(rgb[4]) / 100 : Number(rgb[4]);
    return { r: Number(rgb[1]), g: Number(rgb[2]), b: Number(rgb[3]), a: alpha };
  }
  const hex = /^#([\da-f]{3}|[\da-f]{6})$/i.exec(value.trim());
  if (hex) {
    const digits = hex[1]!.length === 3 ? [...hex[1]!].map((d) => d + d).join('') : hex[1]!;
    return { r: Number.parseInt(digits.slice(0, 2), 16), g: Number.parseInt(digits.slice(2, 4), 16), b: Number.parseInt(digits.slice(4, 6), 16), a: 1 };
  }
  return undefined;
}

export const toHex = ({ r, g, b }: Rgba) =>
  `#${[r, g, b]
    .map((n) => Math.round(n).toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase()}`;

/** A colour that shows: not transparent. */
const solid = (value: string | undefined) => {
  const colour = parseColor(value);
  return colour && colour.a > 0.05 ? colour : undefined;
};

/** Relative luminance (WCAG), 0 black to 1 white. */
const luminance = ({ r, g, b }: Rgba) => {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
};

/** Grey, white or black: not a brand colour. */
const isNeutral = ({ r, g, b }: Rgba) => Math.max(r, g, b) - Math.min(r, g, b) < 24;

const stackOf = (fontFamily: string | undefined) =>
  (fontFamily ?? '')
    .split(',')
    .map((family) => family.trim().replace(/^["']|["']$/g, ''))
    .filter(Boolean);
const px = (value: string | undefined) => (value && /^[\d.]+px$/.test(value) ? value : undefined);
const weight = (value: string | undefined) => (value && /^\d+$/.test(value) ? Number(value) : undefined);
/** A line height as a ratio of the font size (computed styles give pixels, or `normal`). */
const lineRatio = (style: StyleSample | undefined) => {
  if (!style) return undefined;
  const line = Number.parseFloat(style.lineHeight);
  const size = Number.parseFloat(style.fontSize);
  return style.lineHeight.endsWith('px') && size > 0 ? Math.round((line / size) * 100) / 100 : undefined;
};

const defined = <T extends Record<string, unknown>>(object: T): Partial<T> =>
  Object.fromEntries(
    Object.entries(object).filter(
      ([, value]) => value !== undefined && value !== null && !(typeof value === 'object' && Object.keys(value as object).length === 0),
    ),
  ) as Partial<T>;

/** Colours by how often they fill the page's buttons, brand colours before neutral ones. */
function buttonColours(buttons: readonly StyleSample[]): { colour: Rgba; button: StyleSample }[] {
  const counted = new Map<string, { colour: Rgba; button: StyleSample; count: number }>();
  for (const button of buttons) {
    const colour = solid(button.background);
    if (!colour) continue;
    const key = toHex(colour);
    const entry = counted.get(key) ?? { colour, button, count: 0 };
    entry.count++;
    counted.set(key, entry);
  }
  return [...counted.values()].sort((a, b) => Number(isNeutral(a.colour)) - Number(isNeutral(b.colour)) || b.count - a.count);
}

function buttonStyle(button: StyleSample | undefined) {
  if (!button) return undefined;
  const background = solid(button.background);
  const text = solid(button.color);
  const border = solid(button.borderColor);
  return defined({
    background: background && toHex(background),
    textColor: text && toHex(text),
    borderColor: border && toHex(border),
    borderRadius: button.borderRadius,
  });
}

export function brandingProfile(input: BrandingInput): BrandingProfile {
  const { sample } = input;
  const background = solid(sample.body.background) ?? solid(sample.html.background) ?? { r: 255, g: 255, b: 255, a: 1 };
  const text = solid(sample.body.color);
  const link = solid(sample.link?.color);
  const ranked = buttonColours(sample.buttons);
  const theme = solid(sample.themeColor);
  const brand = ranked.filter((entry) => !isNeutral(entry.colour));
  const primary = brand[0]?.colour ?? (link && !isNeutral(link) ? link : undefined) ?? theme;
  const secondary = brand[1]?.colour ?? ranked.find((entry) => isNeutral(entry.colour) && toHex(entry.colour) !== toHex(background))?.colour;
  const accent = link && primary && toHex(link) !== toHex(primary) ? link : brand[2]?.colour;
  const muted = solid(sample.small?.color);
  const hex = (colour: Rgba | undefined) => colour && toHex(colour);

  const bodyStack = stackOf(sample.body.fontFamily);
  const headingStack = stackOf(sample.headings.h1?.fontFamily ?? sample.headings.h2?.fontFamily);
  const codeStack = stackOf(sample.code?.fontFamily);
  const families = new Map<string, { family: string; role: string[] }>();
  const note = (family: string | undefined, role: string) => {
    if (!family) return;
    const entry = families.get(family.toLowerCase()) ?? { family, role: [] };
    if (!entry.role.includes(role)) entry.role.push(role);
    families.set(family.toLowerCase(), entry);
  };
  note(bodyStack[0], 'body');
  note(headingStack[0], 'heading');
  note(codeStack[0], 'code');
  for (const face of sample.loadedFonts) note(face.family, 'loaded');

  const primaryButton = brand[0]?.button ?? ranked[0]?.button;
  const secondaryButton = ranked.find((entry) => entry.button !== primaryButton)?.button;
  const logo = sample.logos[0]?.src ?? null;
  const brandName =
    input.siteName ??
    input.title
      ?.split(/\s[|\-–—·:]\s/)
      .pop()
      ?.trim();

  const colors = defined({
    primary: hex(primary),
    secondary: hex(secondary),
    accent: hex(accent),
    background: toHex(background),
    textPrimary: hex(text),
    textSecondary: hex(muted && text && toHex(muted) !== toHex(text) ? muted : undefined),
    link: hex(link),
  });
  return {
    colorScheme: luminance(background) < 0.4 ? ('dark' as const) : ('light' as const),
    ...(brandName && { brandName }),
    logo,
    fonts: [...families.values()].map(({ family, role }) => ({ family, role: role.join(', ') })),
    colors,
    typography: defined({
      fontFamilies: defined({ primary: bodyStack[0], heading: headingStack[0], code: codeStack[0] }),
      fontStacks: defined({
        primary: bodyStack.length > 0 ? bodyStack : undefined,
        heading: headingStack.length > 0 ? headingStack : undefined,
        body: bodyStack.length > 0 ? bodyStack : undefined,
      }),
      fontSizes: defined({
        h1: px(sample.headings.h1?.fontSize),
        h2: px(sample.headings.h2?.fontSize),
        h3: px(sample.headings.h3?.fontSize),
        body: px(sample.body.fontSize),
        small: px(sample.small?.fontSize),
      }),
      lineHeights: defined({ heading: lineRatio(sample.headings.h1), body: lineRatio(sample.body) }),
      fontWeights: defined({ regular: weight(sample.body.fontWeight), bold: weight(sample.headings.h1?.fontWeight) }),
    }),
    spacing: defined({ borderRadius: primaryButton?.borderRadius }),
    components: defined({
      buttonPrimary: buttonStyle(primaryButton),
      buttonSecondary: buttonStyle(secondaryButton),
      input: sample.input && defined({ borderColor: hex(solid(sample.input.borderColor)), borderRadius: sample.input.borderRadius }),
    }),
    images: { logo, favicon: input.favicon ?? null, ogImage: input.ogImage ?? null },
    ...(primaryButton?.transitionDuration &&
      primaryButton.transitionDuration !== '0s' && { animations: { transitionDuration: primaryButton.transitionDuration } }),
    fieldSources: {
      colors: 'computed styles',
      typography: 'computed styles',
      fonts: 'computed styles and loaded font faces',
      components: 'computed styles',
      logo: logo ? `markup (${sample.logos[0]!.where})` : 'not found',
      favicon: input.favicon ? 'markup (link rel=icon)' : 'not found',
      ogImage: input.ogImage ? 'markup (og:image)' : 'not found',
      ...(brandName && { brandName: input.siteName ? 'markup (og:site_name)' : 'markup (title)' }),
    },
  };
}
