/**
 * The operator's proxies of the `proxy` option (proxy.basic, proxy.enhanced): scrapes go through
 * the one their level names, `auto` falls back to enhanced when basic is turned away or cannot
 * connect, metadata.proxyUsed says which was used, credentials never show in an error, and the
 * private-address rule still judges the target. Real forward proxies on 127.0.0.1, plain fetches
 * and the system's Chromium.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { proxyAttempts, withoutSecrets } from '../../src/engine/fetch/proxy.js';
import { scrape, type ScrapeContext } from '../../src/engine/scrape/scrape.js';
import type { ProxySettings } from '../../src/engine/fetch/proxy.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import type { WebwatchError } from '../../src/errors/webwatch-error.js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const chromium = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

/**
 * A public address that the stand-in proxy answers for itself: under the private-address rule a
 * target must be public, and nothing may leave the machine. Nothing is ever sent to it.
 */
const PUBLIC = 'http://1.1.1.1';

/** An address where nothing listens: a port taken and let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const USER = 'scraper-account';
const PASSWORD = 'pa:ss/w@rd-7f3k';

/** Every way the credentials could be written in a message. */
const SECRETS = [USER, PASSWORD, encodeURIComponent(PASSWORD), Buffer.from(`${USER}:${PASSWORD}`).toString('base64')];

function assertNoSecrets(error: unknown): void {
  const shown = [
    String(error),
    (error as Error).stack ?? '',
    JSON.stringify(error),
    JSON.stringify((error as WebwatchError).details ?? null),
    String((error as Error).cause ?? ''),
  ].join('\n');
  for (const secret of SECRETS) assert.ok(!shown.includes(secret), `the error shows ${JSON.stringify(secret)}: ${shown}`);
}

describe('proxy levels', () => {
  let site: TestServer;
  let basic: ForwardProxy;
  let enhanced: ForwardProxy;
  let blocking: ForwardProxy;
  let guarded: ForwardProxy;
  let locked: ForwardProxy;
  /** A proxy that cannot reach any site: 502 Bad Gateway to every request and CONNECT, as an empty answer. */
  let failing: ForwardProxy;
  /** One whose way to the sites times out: 504 Gateway Timeout. */
  let timingOut: ForwardProxy;
  let nowhere: string;
  const page = () => `${site.origin}/page`;
  const context = (proxies?: ProxySettings, extra: Partial<ScrapeContext> = {}): ScrapeContext => ({
    version: 'test',
    now: () => new Date(),
    ...(proxies && { proxies }),
    browser: { env: process.env, artifactsDir: tempDir() },
    ...extra,
  });
  const at = (proxies: ProxySettings | undefined, options: ScrapeOptions = {}, url = page()) =>
    scrape({ url, options: { timeout: 10_000, ...options } }, context(proxies));

  before(async () => {
    site = await startServer({
      '/page': html('<main><h1>Prices</h1><p>Pro costs $10</p></main>'),
    });
    basic = await startForwardProxy();
    enhanced = await startForwardProxy();
    // A route the site turns away: every request through it gets 403.
    blocking = await startForwardProxy({ answer: () => ({ status: 403, body: '<p>Access denied</p>' }) });
    // Stands in for the public internet: answers for 1.1.1.1, forwards the rest (loopback) as asked.
    guarded = await startForwardProxy({
      answer: (url) => {
        if (url.host !== '1.1.1.1') return undefined;
        if (url.pathname === '/away') return { status: 302, body: '', headers: { location: page() } };
        return { status: 200, body: '<main><h1>Public</h1><p>An article on a public address.</p></main>' };
      },
    });
    locked = await startForwardProxy({ credentials: { user: USER, password: PASSWORD } });
    failing = await startForwardProxy({ answer: () => ({ status: 502, body: '' }), tunnelAnswer: () => 502 });
    timingOut = await startForwardProxy({ answer: () => ({ status: 504, body: '<h1>Gateway Timeout</h1>' }), tunnelAnswer: () => 504 });
    nowhere = `http://127.0.0.1:${await closedPort()}`;
  });
  after(async () => {
    await closeBrowserIfOpen();
    await Promise.all([site, basic, enhanced, blocking, guarded, locked, failing, timingOut].map((each) => each.close()));
  });

  it('the attempts of each level', () => {
    const both = { basic: 'http://b:1', enhanced: 'http://e:1' };
    assert.deepEqual(proxyAttempts('basic', both), [{ level: 'basic', url: 'http://b:1' }]);
    assert.deepEqual(proxyAttempts('enhanced', both), [{ level: 'enhanced', url: 'http://e:1' }]);
    assert.deepEqual(proxyAttempts(undefined, both), [
      { level: 'basic', url: 'http://b:1' },
      { level: 'enhanced', url: 'http://e:1' },
    ]);
    assert.deepEqual(proxyAttempts('enhanced', { basic: 'http://b:1' }), [{ level: 'basic', url: 'http://b:1' }]);
    assert.deepEqual(proxyAttempts('auto', {}), [{ level: 'basic' }]);
  });

  it('proxy: basic goes through the basic proxy, enhanced through the enhanced one; proxyUsed says which', async () => {
    const proxies = { basic: basic.url, enhanced: enhanced.url };
    const [b, e] = [basic.count(page()), enhanced.count(page())];
    const byBasic = await at(proxies, { proxy: 'basic' });
    assert.match(byBasic.markdown ?? '', /Pro costs \$10/);
    assert.equal(byBasic.metadata.proxyUsed, 'basic');
    assert.deepEqual([basic.count(page()) - b, enhanced.count(page()) - e], [1, 0]);
    const byEnhanced = await at(proxies, { proxy: 'enhanced' });
    assert.match(byEnhanced.markdown ?? '', /Pro costs \$10/);
    assert.equal(byEnhanced.metadata.proxyUsed, 'enhanced');
    assert.deepEqual([basic.count(page()) - b, enhanced.count(page()) - e], [1, 1]);
  });

  it('auto (the default): basic when basic works; enhanced when basic is turned away or cannot connect', async () => {
    const [e, blocked] = [enhanced.count(page()), blocking.count(page())];
    const works = await at({ basic: basic.url, enhanced: enhanced.url });
    assert.equal(works.metadata.proxyUsed, 'basic');
    assert.equal(enhanced.count(page()) - e, 0, 'no second try when basic worked');

    const fellBack = await at({ basic: blocking.url, enhanced: enhanced.url }, { proxy: 'auto' });
    assert.equal(fellBack.metadata.statusCode, 200);
    assert.match(fellBack.markdown ?? '', /Pro costs \$10/);
    assert.equal(fellBack.metadata.proxyUsed, 'enhanced');
    assert.deepEqual([blocking.count(page()) - blocked, enhanced.count(page()) - e], [1, 1]);

    const unreachable = await at({ basic: nowhere, enhanced: enhanced.url });
    assert.equal(unreachable.metadata.proxyUsed, 'enhanced');
    assert.equal(enhanced.count(page()) - e, 2);
  });

  it('no fallback for proxy: basic, nor for auto without an enhanced proxy: the 403 page is the answer', async () => {
    const e = enhanced.count(page());
    const asked = await at({ basic: blocking.url, enhanced: enhanced.url }, { proxy: 'basic' });
    assert.deepEqual([asked.metadata.statusCode, asked.metadata.proxyUsed], [403, 'basic']);
    const alone = await at({ basic: blocking.url });
    assert.deepEqual([alone.metadata.statusCode, alone.metadata.proxyUsed], [403, 'basic']);
    assert.equal(enhanced.count(page()), e);
  });

  it('without proxies pages are fetched directly and every level reports basic; enhanced without its proxy goes the basic way', async () => {
    const b = basic.count(page());
    for (const proxy of ['basic', 'enhanced', 'auto'] as const) {
      const document = await at(undefined, { proxy });
      assert.equal(document.metadata.proxyUsed, 'basic', proxy);
    }
    const onlyBasic = await at({ basic: basic.url }, { proxy: 'enhanced' });
    assert.equal(onlyBasic.metadata.proxyUsed, 'basic');
    assert.equal(basic.count(page()) - b, 1, 'only the last scrape went through a proxy');
  });

  it('a proxy that asks for credentials gets them from its address; they are never in an error', async () => {
    const right = await at({ basic: locked.withCredentials(USER, PASSWORD) }, { proxy: 'basic' });
    assert.match(right.markdown ?? '', /Pro costs \$10/);
    assert.equal(locked.count(page()), 1);

    const refusedBefore = locked.refused;
    const wrong = locked.withCredentials(USER, `${PASSWORD}-old`);
    const port = new URL(locked.url).port;
    await assert.rejects(at({ basic: wrong }, { proxy: 'basic' }), (error: WebwatchError) => {
      assert.equal(error.code, 'SCRAPE_CONNECTION_FAILED');
      assert.match(error.message, new RegExp(`through the basic proxy http://127\\.0\\.0\\.1:${port} failed: Proxy Authentication Required \\(407\\)`));
      assertNoSecrets(error);
      return true;
    });
    assert.equal(locked.refused, refusedBefore + 1);

    // A proxy that cannot be reached, and the same through the browser's way in.
    const gone = `http://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@${new URL(nowhere).host}`;
    await assert.rejects(at({ enhanced: gone }, { proxy: 'enhanced' }), (error: WebwatchError) => {
      assert.match(error.message, /through the enhanced proxy http:\/\/127\.0\.0\.1:\d+ failed: connection refused by the proxy/);
      assertNoSecrets(error);
      return true;
    });
  });

  /** The failure of a proxy that answered `status` for itself: its level, address and status, the code of a proxy failure. */
  const proxyAnswered = (proxy: ForwardProxy, level: string, status: string) => (error: WebwatchError) => {
    assert.equal(error.code, 'SCRAPE_CONNECTION_FAILED');
    assert.equal(error.exitCode, 1);
    assert.match(
      error.message,
      new RegExp(`through the ${level} proxy http://127\\.0\\.0\\.1:${new URL(proxy.url).port} failed: the proxy answered ${status}$`),
    );
    return true;
  };

  it("a proxy that answers 502 or 504 for itself fails the page as the proxy's failure, never an empty success; auto then asks the enhanced proxy", async () => {
    const f = failing.count(page());
    await assert.rejects(at({ basic: failing.url }, { proxy: 'basic' }), proxyAnswered(failing, 'basic', '502 Bad Gateway'));
    assert.equal(failing.count(page()) - f, 1, 'the proxy was asked');
    await assert.rejects(at({ enhanced: timingOut.url }, { proxy: 'enhanced' }), proxyAnswered(timingOut, 'enhanced', '504 Gateway Timeout'));
    const fellBack = await at({ basic: failing.url, enhanced: enhanced.url });
    assert.equal(fellBack.metadata.proxyUsed, 'enhanced');
    assert.match(fellBack.markdown ?? '', /Pro costs \$10/);
    // Through the command line: its JSON error and exit code.
    const cli = await run(['scrape', page(), '--json'], { env: { WEBWATCH_HOME: tempDir(), WEBWATCH_PROXY_BASIC: failing.url } });
    assert.equal(cli.code, 1, cli.stderr);
    const answer = JSON.parse(cli.stdout) as { success: boolean; code: string; error: string };
    assert.deepEqual([answer.success, answer.code], [false, 'SCRAPE_CONNECTION_FAILED']);
    assert.match(answer.error, /through the basic proxy http:\/\/127\.0\.0\.1:\d+ failed: the proxy answered 502 Bad Gateway/);
  });

  describe('an https:// page', () => {
    let secure: HttpsServer | undefined;
    let origin = '';
    before(async () => {
      const dir = tempDir();
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'rsa:2048',
            '-nodes',
            '-keyout',
            join(dir, 'key.pem'),
            '-out',
            join(dir, 'cert.pem'),
            '-days',
            '1',
            '-subj',
            '/CN=127.0.0.1',
          ],
          { stdio: 'ignore' },
        );
      } catch {
        return;
      }
      secure = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_q, r) => {
        r.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>Secure</h1><p>Over TLS through a tunnel.</p></main>');
      });
      await new Promise<void>((resolve) => secure!.listen(0, '127.0.0.1', resolve));
      origin = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    });
    after(() => secure?.close());

    it('goes through a CONNECT tunnel of the proxy, with its credentials, fetched and in the browser', async (t) => {
      if (!secure) return t.skip('no openssl to make a certificate');
      const tunnels = () => locked.forwarded.filter((seen) => seen === `CONNECT ${new URL(origin).host}`).length;
      const proxies = { basic: locked.withCredentials(USER, PASSWORD) };
      const fetched = await at(proxies, { proxy: 'basic' }, `${origin}/`);
      assert.match(fetched.markdown ?? '', /Over TLS through a tunnel/);
      assert.equal(tunnels(), 1);
      if (!chromium) return;
      const rendered = await at(proxies, { proxy: 'basic', mobile: true }, `${origin}/`);
      assert.match(rendered.markdown ?? '', /Over TLS through a tunnel/);
      assert.ok(tunnels() >= 2, 'the browser tunnelled through the proxy too');
    });

    it('a proxy that answers 502 to CONNECT fails the page with its status, fetched and in the browser', async (t) => {
      if (!secure) return t.skip('no openssl to make a certificate');
      await assert.rejects(at({ basic: failing.url }, { proxy: 'basic' }, `${origin}/`), proxyAnswered(failing, 'basic', '502 Bad Gateway to CONNECT'));
      if (!chromium) return;
      await assert.rejects(
        at({ basic: failing.url }, { proxy: 'basic', mobile: true }, `${origin}/`),
        proxyAnswered(failing, 'basic', '502 Bad Gateway to CONNECT'),
      );
      await assert.rejects(
        at({ basic: timingOut.url }, { proxy: 'basic', mobile: true }, `${origin}/`),
        proxyAnswered(timingOut, 'basic', '504 Gateway Timeout to CONNECT'),
      );
    });
  });

  it("withoutSecrets masks an address's credentials, and each of them on its own", () => {
    const address = `http://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@proxy.example:8080`;
    const text = withoutSecrets(`failed ${address} (user ${USER}, password ${PASSWORD}, ${SECRETS[3]}) and https://other:word@x.example/`, [address]);
    for (const secret of [...SECRETS, 'other:word']) assert.ok(!text.includes(secret), text);
    assert.match(text, /proxy\.example:8080/);
  });

  it('the private-address rule judges the target (redirects too) before the proxy is asked; the proxy itself may be private', async () => {
    const rule = (proxies: ProxySettings, url: string) => scrape({ url, options: { timeout: 10_000 } }, context(proxies, { publicAddressesOnly: true }));
    const seen = guarded.forwarded.length;
    await assert.rejects(rule({ basic: guarded.url }, page()), (error: WebwatchError) => error.status === 403);
    assert.equal(guarded.forwarded.length, seen, 'the proxy was never asked for the loopback page');

    const article = await rule({ basic: guarded.url }, `${PUBLIC}/article`);
    assert.match(article.markdown ?? '', /An article on a public address/);
    assert.equal(guarded.count(`${PUBLIC}/article`), 1);

    const pageSeen = site.requests.filter((request) => request.path === '/page').length;
    await assert.rejects(rule({ basic: guarded.url }, `${PUBLIC}/away`), (error: WebwatchError) => error.status === 403);
    assert.equal(guarded.count(`${PUBLIC}/away`), 1);
    assert.equal(guarded.count(page()), 0, 'the redirect to loopback was refused before the proxy was asked');
    assert.equal(site.requests.filter((request) => request.path === '/page').length, pageSeen);
  });

  describe('in the browser', { skip: !chromium && 'no Chromium: apt-get install chromium' }, () => {
    // mobile needs a browser: the page is rendered, not fetched.
    const rendered: ScrapeOptions = { mobile: true };

    it("a rendered page goes through the proxy of its level, with the proxy's credentials", async () => {
      const e = enhanced.count(page());
      const byEnhanced = await at({ basic: basic.url, enhanced: enhanced.url }, { ...rendered, proxy: 'enhanced' });
      assert.match(byEnhanced.markdown ?? '', /Pro costs \$10/);
      assert.equal(byEnhanced.metadata.proxyUsed, 'enhanced');
      assert.equal(enhanced.count(page()) - e, 1);

      const l = locked.count(page());
      const byLocked = await at({ basic: locked.withCredentials(USER, PASSWORD) }, { ...rendered, proxy: 'basic' });
      assert.match(byLocked.markdown ?? '', /Pro costs \$10/);
      assert.equal(byLocked.metadata.proxyUsed, 'basic');
      assert.equal(locked.count(page()) - l, 1);
    });

    it('auto falls back to enhanced when the rendered page is turned away', async () => {
      const e = enhanced.count(page());
      const document = await at({ basic: blocking.url, enhanced: enhanced.url }, rendered);
      assert.equal(document.metadata.proxyUsed, 'enhanced');
      assert.match(document.markdown ?? '', /Pro costs \$10/);
      assert.equal(enhanced.count(page()) - e, 1);
    });

    it('a proxy that answers 502 or 504 for itself fails the rendered page with its status, never an empty success', async () => {
      await assert.rejects(at({ basic: failing.url }, { ...rendered, proxy: 'basic' }), proxyAnswered(failing, 'basic', '502 Bad Gateway'));
      await assert.rejects(at({ basic: timingOut.url }, { ...rendered, proxy: 'basic' }), proxyAnswered(timingOut, 'basic', '504 Gateway Timeout'));
      const fellBack = await at({ basic: failing.url, enhanced: enhanced.url }, rendered);
      assert.equal(fellBack.metadata.proxyUsed, 'enhanced');
      assert.match(fellBack.markdown ?? '', /Pro costs \$10/);
      // Through the command line, a page the browser reads (--wait-for): its JSON error and exit code.
      const cli = await run(['scrape', page(), '--wait-for', '1', '--json'], { env: { WEBWATCH_HOME: tempDir(), WEBWATCH_PROXY_BASIC: failing.url } });
      assert.equal(cli.code, 1, cli.stderr);
      const answer = JSON.parse(cli.stdout) as { success: boolean; code: string; error: string };
      assert.deepEqual([answer.success, answer.code], [false, 'SCRAPE_CONNECTION_FAILED']);
      assert.match(answer.error, /through the basic proxy http:\/\/127\.0\.0\.1:\d+ failed: the proxy answered 502 Bad Gateway/);
    });

    it('a proxy that refuses the credentials fails the page, without them in the error', async () => {
      await assert.rejects(at({ basic: locked.withCredentials(USER, `${PASSWORD}-old`) }, { ...rendered, proxy: 'basic' }), (error: WebwatchError) => {
        assert.equal(error.code, 'SCRAPE_CONNECTION_FAILED');
        assert.match(error.message, /through the basic proxy http:\/\/127\.0\.0\.1:\d+ failed: the proxy refused its credentials \(407\)/);
        assertNoSecrets(error);
        return true;
      });
    });

    it('under the private-address rule the target is judged first; a public page goes through the proxy', async () => {
      const rule = (url: string) => scrape({ url, options: { ...rendered, timeout: 10_000 } }, context({ basic: guarded.url }, { publicAddressesOnly: true }));
      const seen = guarded.count(page());
      await assert.rejects(rule(page()), (error: WebwatchError) => error.status === 403);
      assert.equal(guarded.count(page()), seen, 'the proxy was never asked for the loopback page');
      const article = await rule(`${PUBLIC}/article`);
      assert.match(article.markdown ?? '', /An article on a public address/);
      assert.equal(article.metadata.proxyUsed, 'basic');
      // The page redirects to loopback: the hop is refused before it reaches the proxy.
      await assert.rejects(rule(`${PUBLIC}/away`), (error: WebwatchError) => error.status === 403);
      assert.equal(guarded.count(page()), seen);
    });
  });
});
