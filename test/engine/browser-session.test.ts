/**
 * What a browser session carries beyond the page: blockAds, location, profile storage, and the
 * proxy that pins each connection to the address it checked. Pages on loopback, the system's
 * Chromium.
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { startConnectingProxy } from '../../src/engine/browser/public-proxy.js';
import { scrape, type ScrapeContext } from '../../src/engine/scrape/scrape.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import { tempDir } from '../helpers/files.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const chromium = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

/** A page that counts its visits in a cookie and in localStorage, and shows the counts it found. */
const VISIT_PAGE = `<html><body><main><h1>Visits</h1><p id="out"></p><script>
  const cookie = Number((document.cookie.match(/visits=(\\d+)/) || [])[1] || 0);
  const stored = Number(localStorage.getItem('visits') || 0);
  document.getElementById('out').textContent = 'cookie visits ' + cookie + ', stored visits ' + stored;
  document.cookie = 'visits=' + (cookie + 1) + '; max-age=86400; path=/';
  localStorage.setItem('visits', String(stored + 1));
</script></main></body></html>`;

describe('browser sessions', { skip: !chromium && 'no Chromium: apt-get install chromium' }, () => {
  let site: TestServer;
  const context = (extra: Partial<ScrapeContext> = {}, profilesDir = tempDir()): ScrapeContext => ({
    version: 'test',
    now: () => new Date(),
    browser: { env: process.env, artifactsDir: tempDir(), profilesDir },
    ...extra,
  });
  const at = (path: string, options: ScrapeOptions, extra?: ScrapeContext) => scrape({ url: `${site.origin}${path}`, options }, extra ?? context());
  const seen = (path: string) => site.requests.filter((request) => request.path === path).length;

  before(async () => {
    site = await startServer({
      // /adpeeps.php is an advertising pattern and /anametrix.js an analytics one of the tracker database.
      '/ads': html(
        '<html><body><main><h1>Shop</h1><p>A shop page with an advertising script and an analytics beacon.</p><script src="/adpeeps.php"></script><img src="/anametrix.js"><img src="/logo.png"></main></body></html>',
      ),
      '/adpeeps.php': (_q, r) => void r.writeHead(200, { 'content-type': 'text/javascript' }).end('document.querySelector("main").append("AD LOADED")'),
      '/anametrix.js': (_q, r) => void r.writeHead(200, { 'content-type': 'image/gif' }).end(),
      '/logo.png': (_q, r) => void r.writeHead(200, { 'content-type': 'image/png' }).end(),
      '/where': html(
        '<html><body><main><h1>Where</h1><p id="w"></p><script>document.getElementById("w").textContent = "languages " + navigator.languages.join(" ") + "; language " + navigator.language + "; zone " + Intl.DateTimeFormat().resolvedOptions().timeZone</script></main></body></html>',
      ),
      '/visit': html(VISIT_PAGE),
    });
  });
  after(async () => {
    await closeBrowserIfOpen();
    await site.close();
  });

  it('blockAds (the default) keeps ad and tracker requests from leaving the page; blockAds: false lets them through', async () => {
    const blocked = await at('/ads', { mobile: true });
    assert.match(blocked.markdown!, /advertising script/);
    assert.doesNotMatch(blocked.markdown!, /AD LOADED/);
    assert.equal(seen('/adpeeps.php'), 0, 'the ad script never reached the server');
    assert.equal(seen('/anametrix.js'), 0, 'the analytics beacon never reached the server');
    assert.equal(seen('/logo.png'), 1, 'an ordinary image is fetched');
    const open = await at('/ads', { mobile: true, blockAds: false });
    assert.match(open.markdown!, /AD LOADED/);
    assert.equal(seen('/adpeeps.php'), 1);
    assert.equal(seen('/anametrix.js'), 1);
  });

  it('location: the page sees the languages, and the time zone of the country', async () => {
    const before = site.requests.length;
    const german = await at('/where', { location: { country: 'DE', languages: ['de-DE', 'en'] }, mobile: true });
    assert.match(german.markdown!, /languages de-DE en; language de-DE; zone Europe\/Berlin/);
    assert.match(String(site.requests.slice(before).find((request) => request.path === '/where')?.headers['accept-language']), /^de-DE,de;q=0\.9,en;q=0\.8/);
    const australian = await at('/where', { location: { country: 'AU' }, mobile: true });
    assert.match(australian.markdown!, /languages en-AU; language en-AU; zone Australia\/Sydney/);
    const american = await at('/where', { location: { country: 'US', languages: ['not a locale!', 'en-US'] }, mobile: true });
    assert.match(american.markdown!, /language en-US; zone America\/New\\?_York/, 'a malformed language is left out, not a failure');
  });

  it('a profile keeps cookies and localStorage across scrapes; saveChanges: false reads without writing', async () => {
    const profiles = tempDir();
    const visit = (profile: ScrapeOptions['profile']) => at('/visit', { profile }, context({}, profiles));
    assert.match((await visit({ name: 'shop' })).markdown!, /cookie visits 0, stored visits 0/);
    assert.match((await visit({ name: 'shop' })).markdown!, /cookie visits 1, stored visits 1/);
    assert.match((await visit({ name: 'shop', saveChanges: false })).markdown!, /cookie visits 2, stored visits 2/);
    assert.match((await visit({ name: 'shop' })).markdown!, /cookie visits 2, stored visits 2/, 'the read-only visit changed nothing');
    assert.match((await visit({ name: '../../shop' })).markdown!, /cookie visits 0/, 'another name is another profile, whatever its characters');
    // Without a profile, nothing is kept: a fresh context each time.
    assert.match((await at('/visit', { mobile: true })).markdown!, /cookie visits 0/);
    // A context without the team's profile storage refuses a profile rather than write it elsewhere.
    const bare: ScrapeContext = { version: 'test', now: () => new Date(), browser: { env: process.env, artifactsDir: tempDir() } };
    await assert.rejects(at('/visit', { profile: { name: 'shop' } }, bare), /profile "shop" needs the engine's profile storage/);
  });

  it('profiles of different directories (teams) with the same name do not share', async () => {
    const [mine, theirs] = [tempDir(), tempDir()];
    await at('/visit', { profile: { name: 'shared-name' } }, context({}, mine));
    assert.match((await at('/visit', { profile: { name: 'shared-name' } }, context({}, mine))).markdown!, /cookie visits 1/);
    assert.match((await at('/visit', { profile: { name: 'shared-name' } }, context({}, theirs))).markdown!, /cookie visits 0/);
  });

  it('one saving session per profile: a second one waits for it, or fails with 409 when its timeout runs out first', async () => {
    const profiles = tempDir();
    const slow = at('/visit', { profile: { name: 'busy' }, actions: [{ type: 'wait', milliseconds: 2500 }] }, context({}, profiles));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const waiting = at('/visit', { profile: { name: 'busy' } }, context({}, profiles));
    const reader = at('/visit', { profile: { name: 'busy', saveChanges: false } }, context({}, profiles));
    await assert.rejects(at('/visit', { profile: { name: 'busy' }, timeout: 1000 }, context({}, profiles)), (error: WebwatchError) => {
      assert.equal(error.status, 409);
      assert.match(JSON.stringify(error.details), /another scrape that saves changes to profile \\"busy\\" is still running/);
      return true;
    });
    assert.match((await reader).markdown!, /cookie visits 0/, 'a reader does not wait, and sees the state before the first session');
    assert.match((await slow).markdown!, /cookie visits 0/);
    assert.match((await waiting).markdown!, /cookie visits 1/, 'the waiting session started after the first one saved');
  });

  it('under the private-address rule the browser connects through the proxy, which refuses a name that resolves to loopback', async () => {
    // The URL check passes everything here (as a name that first resolved to a public address
    // would): only the connection-time lookup stands between the browser and loopback.
    const allowEverything = () => undefined;
    const before = seen('/where');
    const url = `http://localhost:${new URL(site.origin).port}/where`;
    await assert.rejects(scrape({ url, options: { mobile: true } }, context({ checkUrl: allowEverything, publicAddressesOnly: true })), WebwatchError);
    assert.equal(seen('/where'), before, 'the loopback server saw no request');
    // Without the rule the same page loads: the refusal above is the proxy's.
    assert.match((await scrape({ url, options: { mobile: true } }, context())).markdown!, /zone/);
  });
});

describe('the connecting proxy', () => {
  it('forwards plain HTTP and tunnels CONNECT to the address its lookup gives, and answers 403 to a refused one', async () => {
    const site = await startServer({ '/': html('<p>through the proxy</p>') });
    const open = new URL(await startConnectingProxy(lookup as never));
    const refuse = new URL(
      await startConnectingProxy(((_host: string, _options: unknown, callback: (error: Error) => void) =>
        callback(Object.assign(new Error('refused'), { code: 'EPRIVATETARGET' }))) as never),
    );
    try {
      const viaProxy = (proxy: URL) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          httpRequest({ host: proxy.hostname, port: proxy.port, path: `${site.origin}/`, headers: { host: new URL(site.origin).host } }, (response) => {
            let body = '';
            response.on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: response.statusCode!, body }));
          })
            .on('error', reject)
            .end();
        });
      assert.deepEqual(await viaProxy(open), { status: 200, body: '<p>through the proxy</p>' });
      assert.equal((await viaProxy(refuse)).status, 403);
      const host = new URL(site.origin).host;
      const tunnelled = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(open.port), open.hostname, () => socket.write(`CONNECT ${host} HTTP/1.1\r\nhost: ${host}\r\n\r\n`));
        let answer = '';
        let asked = false;
        socket
          .on('data', (chunk) => {
            answer += chunk;
            // Once the tunnel is open, a request through it.
            if (!asked && answer.includes('\r\n\r\n')) {
              asked = true;
              socket.write(`GET / HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
            }
          })
          .on('end', () => resolve(answer))
          .on('error', reject);
      });
      assert.match(tunnelled, /^HTTP\/1\.1 200 Connection Established[\s\S]*through the proxy/);
    } finally {
      await site.close();
    }
  });
});
