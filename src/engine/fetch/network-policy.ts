/**
 * The private-network rule of `webwatch serve`: a server that fetches URLs for its clients must
 * not become their way into its own network. Every address a host name resolves to must be a
 * public unicast address; loopback, private, link-local, unique-local, CGNAT and reserved ranges
 * are refused, and so are IPv6 addresses that carry such an IPv4 address. Checked for each URL
 * and each redirect before connecting.
 */
import { lookup as lookupCallback, type LookupAddress, type LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';

export const PRIVATE_TARGET_HINT =
  'targets on private, loopback and link-local addresses are refused; start serve with --allow-private-targets, or mcp --http with it, to allow them';

export function isPublicAddress(address: string): boolean {
  const parsed = ipaddr.parse(withHexTail(address));
  return parsed.kind() === 'ipv4' ? isPublicIPv4(parsed as ipaddr.IPv4) : isPublicIPv6(parsed as ipaddr.IPv6);
}

const isPublicIPv4 = (address: ipaddr.IPv4) => address.range() === 'unicast';

/**
 * An IPv6 address with its dotted IPv4 tail written in hex. ipaddr.js reads `::a.b.c.d` as
 * `::ffff:a.b.c.d`, another address, and the resolver writes IPv4-compatible answers that way.
 */
function withHexTail(address: string): string {
  return address.replace(
    /:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(%.*)?$/,
    (_match, a: string, b: string, c: string, d: string, zone: string | undefined) =>
      `:${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}${zone ?? ''}`,
  );
}

/** The IPv4 address in two 16-bit words of an IPv6 address. */
const ipv4In = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** `::/96`, deprecated, which ipaddr.js calls unicast: a host with an automatic tunnel sends it to the IPv4 address it ends with. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * An IPv6 address that carries an IPv4 address can lead to it (through the kernel, a tunnel or
 * a translator), so it is judged by that address. ipaddr.js names the mapped, translated (SIIT),
 * NAT64, 6to4 and Teredo ranges, which are never plain unicast and so are refused whatever they
 * carry; the forms it calls unicast are judged here.
 */
function isPublicIPv6(address: ipaddr.IPv6): boolean {
  const words = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
      return isPublicIPv4(ipv4In(words[6]!, words[7]!));
    case 'unicast':
      if (address.match(IPV4_COMPATIBLE)) return false;
      // An ISATAP interface id (`::0:5efe:a.b.c.d`, `::200:5efe:a.b.c.d`, whatever its u/g bits) ends with the IPv4 address of the node.
      if ((words[4]! & 0xfcff) === 0 && words[5] === 0x5efe) return isPublicIPv4(ipv4In(words[6]!, words[7]!));
      return true;
    default:
      return false;
  }
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
      const forbidden = new WebwatchError(ERROR_MESSAGES.forbidden, {
        status: 403,
        details: { host: hostname, address: refused.address, reason: PRIVATE_TARGET_HINT },
      });
      return callback(Object.assign(forbidden, { code: 'EPRIVATETARGET' }) as unknown as NodeJS.ErrnoException, '');
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
