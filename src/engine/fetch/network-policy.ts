/**
 * The private-network rule of `webwatch serve`: a server that fetches URLs for its clients must
 * not become their way into its own network. Every address a host name resolves to must be a
 * public unicast address; loopback, private, link-local, unique-local, CGNAT and reserved ranges
 * are refused. Checked for each URL and each redirect before connecting.
 */
import { lookup as lookupCallback, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';

export const PRIVATE_TARGET_HINT = 'targets on private, loopback and link-local addresses are refused; start serve with --allow-private-targets to allow them';

export function isPublicAddress(address: string): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

function refuse(url: URL, address: string): never {
  throw new WebwatchError(ERROR_MESSAGES.forbidden, { status: 403, details: { url: url.href, address, reason: PRIVATE_TARGET_HINT } });
}

/** Throws 403 Forbidden when `url`'s host is, or resolves to, a non-public address. */
export async function refusePrivateTargets(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) {
    if (!isPublicAddress(host)) refuse(url, host);
    return;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    // A name that does not resolve fails later, at the fetch, with its own error.
    return;
  }
  for (const { address } of addresses) if (!isPublicAddress(address)) refuse(url, address);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for sockets that refuses non-public addresses at connect time. The URL check above
 * runs before the request; this one sees the address the socket will really use, so a name
 * that resolves differently the second time (DNS rebinding) cannot reach a private network.
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookupCallback(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) {
      const forbidden = new WebwatchError(ERROR_MESSAGES.forbidden, { status: 403, details: { host: hostname, address: refused.address, reason: PRIVATE_TARGET_HINT } });
      return callback(Object.assign(forbidden, { code: 'EPRIVATETARGET' }) as unknown as NodeJS.ErrnoException, '');
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
