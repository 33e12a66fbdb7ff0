/**
 * The proxies' settings: `proxy.basic` and `proxy.enhanced` in a configuration file, and
 * WEBWATCH_PROXY_BASIC and WEBWATCH_PROXY_ENHANCED over them; bad values are errors that never
 * quote the address (it may hold a password); and `webwatch scrape` goes through them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkServices, loadConfig } from '../../src/config/config.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'hunter2-Qx9z';

describe('proxy settings', () => {
  const noUserFile = () => ({ HOME: tempDir(), XDG_CONFIG_HOME: tempDir() });

  it('come from the file, each variable winning over its field', async () => {
    const project = writeFiles({ '.webwatchrc.yaml': 'proxy:\n  basic: http://basic.example:3128\n  enhanced: http://user:pw@enhanced.example:8080\n' });
    const config = await loadConfig(noUserFile(), project);
    assert.deepEqual(checkServices(config, {}).proxies, { basic: 'http://basic.example:3128', enhanced: 'http://user:pw@enhanced.example:8080' });
    assert.deepEqual(checkServices(config, { WEBWATCH_PROXY_BASIC: 'https://pool.example:443' }).proxies, {
      basic: 'https://pool.example:443',
      enhanced: 'http://user:pw@enhanced.example:8080',
    });
    assert.deepEqual(checkServices(await loadConfig(noUserFile(), tempDir()), { WEBWATCH_PROXY_ENHANCED: 'http://e.example:1' }).proxies, {
      enhanced: 'http://e.example:1',
    });
    assert.equal(checkServices(await loadConfig(noUserFile(), tempDir()), {}).proxies, undefined);
  });

  it('a bad address in a file names the field, never the value', async () => {
    const settings = [
      { proxy: { basic: `ftp://scraper:${PASSWORD}@proxy.example` } },
      { proxy: { basic: `scraper:${PASSWORD}@proxy.example:8080` } },
      // The address where the mapping of levels should be.
      { proxy: `scraper:${PASSWORD}@proxy.example:8080` },
    ];
    for (const setting of settings) {
      const project = writeFiles({ '.webwatchrc.json': JSON.stringify(setting) });
      await assert.rejects(loadConfig(noUserFile(), project), (error: Error) => {
        assert.match(error.message, /\.webwatchrc\.json:1:\d+: proxy(\.basic)?: must /);
        assert.ok(!error.message.includes(PASSWORD), error.message);
        return true;
      });
    }
  });

  it('a bad variable names the variable, never the value', async () => {
    const config = await loadConfig(noUserFile(), tempDir());
    for (const value of [`scraper:${PASSWORD}@proxy.example:8080`, `socks5://scraper:${PASSWORD}@proxy.example`, 'not a url']) {
      assert.throws(
        () => checkServices(config, { WEBWATCH_PROXY_ENHANCED: value }),
        (error: Error & { exitCode: number }) => {
          assert.equal(error.exitCode, 2);
          assert.match(error.message, /^WEBWATCH_PROXY_ENHANCED must be the address of an HTTP proxy/);
          assert.ok(!error.message.includes(PASSWORD) && !error.message.includes('not a url'), error.message);
          return true;
        },
      );
    }
  });

  describe('webwatch scrape', () => {
    let site: TestServer;
    let proxy: ForwardProxy;
    let locked: ForwardProxy;
    const page = () => `${site.origin}/page`;
    before(async () => {
      site = await startServer({ '/page': html('<main><h1>Prices</h1><p>Pro costs $10</p></main>') });
      proxy = await startForwardProxy();
      locked = await startForwardProxy({ credentials: { user: 'scraper', password: PASSWORD } });
    });
    after(async () => {
      await Promise.all([site, proxy, locked].map((each) => each.close()));
    });

    it('goes through WEBWATCH_PROXY_BASIC', async () => {
      const result = await run(['scrape', page(), '--json', '--max-age', '0'], { env: { WEBWATCH_PROXY_BASIC: proxy.url } });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).data.metadata.proxyUsed, 'basic');
      assert.equal(proxy.count(page()), 1);
    });

    it("goes through the file's enhanced proxy for proxy: enhanced", async () => {
      const project = writeFiles({ '.webwatchrc.yaml': `proxy:\n  enhanced: ${proxy.url}\n` });
      const options = join(project, 'options.yaml');
      writeFileSync(options, 'proxy: enhanced\n');
      const before = proxy.count(page());
      const result = await run(['scrape', page(), '--json', '--max-age', '0', '--options', options], { cwd: project });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).data.metadata.proxyUsed, 'enhanced');
      assert.equal(proxy.count(page()) - before, 1);
    });

    it('a proxy that refuses its credentials fails the scrape without showing them, --verbose or --json', async () => {
      const wrong = `http://scraper:${encodeURIComponent(`${PASSWORD}-old`)}@${new URL(locked.url).host}`;
      for (const flags of [[], ['--verbose'], ['--json']]) {
        const result = await run(['scrape', page(), '--max-age', '0', ...flags], { env: { WEBWATCH_PROXY_BASIC: wrong } });
        assert.notEqual(result.code, 0);
        const shown = result.stdout + result.stderr;
        assert.match(shown, /basic proxy http:\/\/127\.0\.0\.1:\d+/);
        for (const secret of [PASSWORD, 'scraper:', Buffer.from(`scraper:${PASSWORD}-old`).toString('base64')]) assert.ok(!shown.includes(secret), shown);
      }
      assert.equal(locked.refused, 3);
    });
  });
});
