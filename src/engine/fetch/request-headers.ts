/** The request headers of a page, fetched or rendered (scrape, crawl, browser): user agent, Accept, Accept-Language, then the user's own. */
import type { ScrapeOptions } from '../../spec/scrape-options.js';

const DESKTOP_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 webwatch';
const MOBILE_AGENT = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36 webwatch';

/** The usual language of a few countries, for the default Accept-Language of `location.country`. */
const COUNTRY_LANGUAGE: Record<string, string> = {
  US: 'en-US',
  GB: 'en-GB',
  AU: 'en-AU',
  CA: 'en-CA',
  IE: 'en-IE',
  NZ: 'en-NZ',
  IN: 'en-IN',
  DE: 'de-DE',
  AT: 'de-AT',
  CH: 'de-CH',
  FR: 'fr-FR',
  BE: 'fr-BE',
  ES: 'es-ES',
  MX: 'es-MX',
  AR: 'es-AR',
  IT: 'it-IT',
  PT: 'pt-PT',
  BR: 'pt-BR',
  NL: 'nl-NL',
  SE: 'sv-SE',
  NO: 'nb-NO',
  DK: 'da-DK',
  FI: 'fi-FI',
  PL: 'pl-PL',
  CZ: 'cs-CZ',
  RU: 'ru-RU',
  UA: 'uk-UA',
  TR: 'tr-TR',
  JP: 'ja-JP',
  KR: 'ko-KR',
  CN: 'zh-CN',
  TW: 'zh-TW',
  HK: 'zh-HK',
  IL: 'he-IL',
  SA: 'ar-SA',
  AE: 'ar-AE',
  EG: 'ar-EG',
  GR: 'el-GR',
  HU: 'hu-HU',
  RO: 'ro-RO',
  TH: 'th-TH',
  VN: 'vi-VN',
  ID: 'id-ID',
};

/** `['de-DE', 'en']` -> `de-DE,en;q=0.9`, with each language's base added after it. */
export function acceptLanguage(languages: readonly string[]): string {
  const ordered: string[] = [];
  for (const language of languages) {
    const base = language.split('-')[0]!;
    for (const tag of [language, base]) if (!ordered.includes(tag)) ordered.push(tag);
  }
  return ordered.map((tag, i) => (i === 0 ? tag : `${tag};q=${Math.max(0.1, 1 - i * 0.1).toFixed(1)}`)).join(',');
}

/** The languages a page is asked in: `location.languages`, else the country's usual one. */
export function pageLanguages(options: ScrapeOptions): readonly string[] {
  return options.location?.languages?.length ? options.location.languages : [COUNTRY_LANGUAGE[options.location?.country ?? 'US'] ?? 'en-US'];
}

/** The default headers by user agent and languages: a check asks for hundreds of pages alike. */
const defaults = new Map<string, Readonly<Record<string, string>>>();

export function requestHeaders(options: ScrapeOptions, version: string): Record<string, string> {
  const languages = pageLanguages(options);
  const key = `${options.mobile ? 'm' : 'd'}/${version}/${languages.join(',')}`;
  let base = defaults.get(key);
  if (!base) {
    base = {
      'user-agent': `${options.mobile ? MOBILE_AGENT : DESKTOP_AGENT}/${version}`,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-language': acceptLanguage(languages),
    };
    if (defaults.size >= 64) defaults.clear();
    defaults.set(key, base);
  }
  const headers = { ...base };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}
