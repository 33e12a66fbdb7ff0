/**
 * The private-network rule of `webwatch serve`: a server that fetches URLs for its clients must
 * not become their way into its own network. Every address a host name resolves to must be a
 * public unicast address; loopback, private, link-local, unique-local, CGNAT and reserved ranges
 * are refused. Checked for each URL and each redirect before connecting.
 */
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
