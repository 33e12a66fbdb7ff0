/**
 * The time zone a page sees for `location.country`: the zone of the country's most populous city
 * (city-timezones, from Natural Earth's populated places), so that a country of several zones
 * gets the one most of its people live in (US: America/New_York, AU: Australia/Sydney).
 */
import { createRequire } from 'node:module';

let zones: Map<string, string> | undefined;

export function countryTimeZone(country: string): string | undefined {
  if (!zones) {
    // Through require: the data (2 MB of JSON) stays out of the bundled command line, read when first needed.
    const { cityMapping } = createRequire(import.meta.url)('city-timezones') as { cityMapping: { iso2: string; pop: number; timezone: string }[] };
    const largest = new Map<string, { pop: number; timezone: string }>();
    for (const city of cityMapping) {
      if (!city.iso2 || !city.timezone) continue;
      const known = largest.get(city.iso2);
      if (!known || city.pop > known.pop) largest.set(city.iso2, city);
    }
    zones = new Map([...largest].map(([code, city]) => [code, city.timezone]));
  }
  const code = country.toUpperCase();
  // A territory without a city in the data (a few small islands) gets ICU's first zone of the region.
  return zones.get(code) ?? (new Intl.Locale(`und-${code}`) as Intl.Locale & { timeZones?: string[] }).timeZones?.[0];
}
