/**
 * serve's private-address rule on addresses themselves: every spelling of a private address,
 * IPv6 forms that carry a private IPv4 address included, is refused, by the URL check and by
 * the connect-time lookup alike; public addresses pass. Nothing here opens a connection.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress, publicOnlyLookup, refusePrivateTargets } from '../../src/engine/fetch/network-policy.js';
import type { WebwatchError } from '../../src/errors/webwatch-error.js';

/** [address as written in a URL's brackets, what it is] */
const PRIVATE_IPV6: [string, string][] = [
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback, in full'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fd12:3456::1', 'unique-local'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  // IPv4-compatible (::/96, deprecated): refused whatever it carries.
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['0:0:0:0:0:0:127.0.0.1', 'IPv4-compatible loopback, in full'],
  ['::7f00:1', 'IPv4-compatible loopback, in hex'],
  ['::10.0.0.1', 'IPv4-compatible private'],
  ['::169.254.169.254', 'IPv4-compatible link-local (cloud metadata)'],
  ['::8.8.8.8', 'IPv4-compatible public, as the resolver writes it (ipaddr.js alone reads it as mapped)'],
  // IPv4-mapped: judged by the IPv4 address.
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, in hex'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, in full'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:100.64.0.1', 'IPv4-mapped CGNAT'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  // IPv4-translated (SIIT).
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
  ['::ffff:0:a00:1', 'IPv4-translated private'],
  // NAT64: the well-known prefix and the local-use one.
  ['64:ff9b::10.0.0.1', 'NAT64 private'],
  ['64:ff9b::7f00:1', 'NAT64 loopback'],
  ['64:ff9b::169.254.169.254', 'NAT64 link-local'],
  ['64:ff9b:1::10.0.0.1', 'local-use NAT64 private'],
  ['64:ff9b:1:abcd::8.8.8.8', 'local-use NAT64, a local translator'],
  // 6to4: the IPv4 address in bits 16-47.
  ['2002:c0a8:0101::', '6to4 of 192.168.1.1'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['2002:a9fe:a9fe::', '6to4 of 169.254.169.254'],
  // Teredo: server 65.54.227.120, client 127.0.0.1 and 10.0.0.1 (inverted, in the last 32 bits).
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo, client 10.0.0.1'],
  // ISATAP interface ids under a public prefix.
  ['2606:4700::5efe:7f00:1', 'ISATAP of 127.0.0.1'],
  ['2606:4700::5efe:10.0.0.1', 'ISATAP of 10.0.0.1'],
  ['2606:4700::200:5efe:192.168.1.1', 'ISATAP (u bit) of 192.168.1.1'],
  ['2606:4700::100:5efe:172.16.0.1', 'ISATAP (g bit) of 172.16.0.1'],
  ['fe80::5efe:10.0.0.1', 'link-local ISATAP'],
];

const PRIVATE_IPV4 = ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255'];

const PUBLIC = [
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '2606:4700::5efe:8.8.8.8',
  '2606:4700::200:5efe:1.1.1.1',
  '8.8.8.8',
  '1.1.1.1',
];

const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address);

const lookupError = (host: string) => new Promise<unknown>((resolve) => publicOnlyLookup(host, {}, (error) => resolve(error)));

describe('the private-address rule on addresses', () => {
  for (const [address, what] of PRIVATE_IPV6) {
    it(`refuses [${address}] (${what})`, async () => {
      assert.equal(isPublicAddress(address), false);
      const url = new URL(`http://${bracketed(address)}:8080/admin`);
      await assert.rejects(refusePrivateTargets(url), (error: WebwatchError) => {
        assert.equal(error.status, 403);
        assert.equal(error.message, 'Forbidden');
        assert.match(String((error.details as { reason: string }).reason), /--allow-private-targets/);
        return true;
      });
      const refused = (await lookupError(address)) as WebwatchError | null;
      assert.equal((refused as { code?: string } | null)?.code, 'EPRIVATETARGET', 'the connect-time lookup refuses it too');
    });
  }

  it('refuses private IPv4 addresses, in URLs and at connect time', async () => {
    for (const address of PRIVATE_IPV4) {
      assert.equal(isPublicAddress(address), false, address);
      await assert.rejects(refusePrivateTargets(new URL(`http://${address}/`)), /Forbidden/, address);
      assert.equal(((await lookupError(address)) as { code?: string } | null)?.code, 'EPRIVATETARGET', address);
    }
  });

  it('lets public addresses through, in URLs and at connect time', async () => {
    for (const address of PUBLIC) {
      assert.equal(isPublicAddress(address), true, address);
      await refusePrivateTargets(new URL(`http://${bracketed(address)}/`));
      assert.equal(await lookupError(address), null, address);
    }
  });
});
