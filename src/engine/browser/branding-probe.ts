/**
 * What the branding format reads in a rendered page: computed styles (the cascade, custom
 * properties, inheritance and media queries already resolved by the browser, which no reading
 * of the CSS text can match), the fonts the page loaded, and logo candidates. The probe runs in
 * the page; engine/extract/branding.ts turns its sample into the branding profile.
 */

export interface StyleSample {
  color: string;
  background: string;
  fontFamily: string;
  fontSize: string;
  fontWeight: string;
  lineHeight: string;
  borderColor?: string;
  borderRadius?: string;
  transitionDuration?: string;
  text?: string;
}

export interface BrandingSample {
  html: StyleSample;
  body: StyleSample;
  headings: Partial<Record<'h1' | 'h2' | 'h3', StyleSample>>;
  link?: StyleSample;
  code?: StyleSample;
  small?: StyleSample;
  buttons: StyleSample[];
  input?: StyleSample;
  /** Families the page loaded with @font-face. */
  loadedFonts: { family: string; weight: string; style: string }[];
  logos: { src: string; alt: string; where: string }[];
  themeColor?: string;
}

/** The probe, as source: the engine is compiled without the DOM's types, and this runs only in the page. */
export const BRANDING_PROBE = `(() => {
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && Number(s.opacity) > 0; };
  const sample = (el) => {
    if (!el) return undefined;
    const s = getComputedStyle(el);
    const text = (el.innerText || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 60);
    return { color: s.color, background: s.backgroundColor, fontFamily: s.fontFamily, fontSize: s.fontSize, fontWeight: s.fontWeight, lineHeight: s.lineHeight,
      borderColor: s.borderTopColor, borderRadius: s.borderTopLeftRadius, transitionDuration: s.transitionDuration, text };
  };
  const first = (selector) => [...document.querySelectorAll(selector)].find(visible);
  const buttons = [...document.querySelectorAll('button, [role=button], input[type=submit], input[type=button], a[class*=btn], a[class*=button], a[class*=cta]')]
    .filter(visible).slice(0, 24).map(sample);
  const fonts = [];
  try { for (const face of document.fonts) if (face.status === 'loaded') fonts.push({ family: face.family.replace(/^["']|["']$/g, ''), weight: face.weight, style: face.style }); } catch {}
  const logos = [];
  const describe = (el) => [el.id, typeof el.className === 'string' ? el.className : '', el.getAttribute('alt') || '', el.getAttribute('aria-label') || ''].join(' ');
  for (const el of document.querySelectorAll('img, svg, [class*=logo] img, a[href="/"] img')) {
    if (logos.length >= 6 || !visible(el)) continue;
    const inHeader = !!el.closest('header, nav, [class*=header], [id*=header]');
    const homeLink = !!el.closest('a[href="/"], a[href="./"], a[rel=home]');
    const named = /logo|brand/i.test(describe(el) + ' ' + (el.parentElement ? describe(el.parentElement) : ''));
    if (!named && !(inHeader && homeLink)) continue;
    const src = el.tagName.toLowerCase() === 'img' ? el.currentSrc || el.src : 'data:image/svg+xml;utf8,' + encodeURIComponent(el.outerHTML.slice(0, 20000));
    logos.push({ src, alt: el.getAttribute('alt') || el.getAttribute('aria-label') || '', where: named ? 'named logo' : 'header home link' });
  }
  const main = document.querySelector('main, article, [role=main]') || document.body;
  const link = [...main.querySelectorAll('a[href]')].find((a) => visible(a) && !a.closest('nav, header, footer')) || first('a[href]');
  return {
    html: sample(document.documentElement), body: sample(document.body),
    headings: Object.fromEntries(['h1', 'h2', 'h3'].map((h) => [h, sample(first(h))]).filter(([, s]) => s)),
    link: sample(link), code: sample(first('code, pre, kbd')), small: sample(first('small, figcaption, .caption, footer p')),
    buttons, input: sample(first('input[type=text], input[type=email], input[type=search], input:not([type]), textarea')),
    loadedFonts: fonts, logos,
    themeColor: document.querySelector('meta[name="theme-color"]')?.getAttribute('content') || undefined,
  };
})()`;

/** Whether the request asks for the branding format. */
export function wantsBranding(formats: readonly (string | { type: string })[] | undefined): boolean {
  return (formats ?? []).some((format) => (typeof format === 'string' ? format : format.type) === 'branding');
}
