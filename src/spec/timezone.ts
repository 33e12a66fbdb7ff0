/** IANA time zone names, checked against the zones the runtime's ICU data knows. */
import { didYouMean } from './suggest.js';
import { UTC_ZONES } from './utc-zones.js';

let canonicalZones: Set<string> | undefined;

function zones(): Set<string> {
  canonicalZones ??= new Set([...Intl.supportedValuesOf('timeZone'), ...UTC_ZONES]);
  return canonicalZones;
}

/** A message when `name` is not a real IANA zone; undefined when it is. */
export function checkTimezone(name: string): string | undefined {
  if (UTC_ZONES.has(name) || zones().has(name)) return undefined;
  const notAZone = () => `"${name}" is not an IANA time zone${didYouMean(name, [...zones()])}; use a name like Europe/Paris or America/New_York`;
  // Node 24's ICU takes UTC offsets (+02:00) as zones too; an IANA name starts with a letter.
  if (!/^[A-Za-z]/.test(name)) return notAZone();
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return notAZone();
  }
  // ICU matches case-insensitively; the stored schedule must carry the real spelling.
  if (resolved !== name && resolved.toLowerCase() === name.toLowerCase()) return `time zone is spelled "${resolved}"`;
  return undefined; // a link name such as US/Eastern
}
