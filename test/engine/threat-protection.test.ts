/** Threat protection: policy rules, host verdicts, and scrapes that are refused before any fetch. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { scrape } from '../../src/engine/scrape/scrape.js';
import { domainMatches, effectiveThreatRules, judgeHost, NO_THREAT_POLICY, type OrganizationThreatPolicy } from '../../src/engine/threat/threat-protection.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const ON: OrganizationThreatPolicy = { enabled: true, allowOverrides: true, enforced: false };

describe('threat protection rules', () => {
  it('matches plain domains exactly and *. wildcards on subdomains', () => {
    assert.ok(domainMatches('evil.com', 'evil.com'));
    assert.ok(domainMatches('EVIL.com.', 'evil.com'));
    assert.ok(!domainMatches('www.evil.com', 'evil.com'));
    assert.ok(domainMatches('a.b.evil.com', '*.evil.com'));
    assert.ok(!domainMatches('evil.com', '*.evil.com'));
    assert.ok(!domainMatches('notevil.com', '*.evil.com'));
  });

  it('judges: whitelist first, then blacklist, then blocked TLDs', () => {
    const rules = { blacklist: ['*.example.com', 'bad.org'], whitelist: ['good.example.com'], blockedTlds: ['zip', 'co.uk'] };
    assert.deepEqual(judgeHost('good.example.com', rules), { allowed: true, analyzed: false });
    assert.match((judgeHost('x.example.com', rules) as { reason: string }).reason, /blacklist entry \*\.example\.com/);
    assert.match((judgeHost('files.zip', rules) as { reason: string }).reason, /blocked top-level domain zip/);
    assert.match((judgeHost('shop.co.uk', rules) as { reason: string }).reason, /co\.uk/);
    assert.ok(judgeHost('fine.net', rules).allowed);
    assert.ok(judgeHost('zipper.net', rules).allowed);
  });

  it('mode normal has no classifier locally: closed blocks, open allows with a warning', () => {
    assert.equal(judgeHost('a.net', { mode: 'normal', failurePolicy: 'closed' }).allowed, false);
    const open = judgeHost('a.net', { mode: 'normal', failurePolicy: 'open' });
    assert.ok(open.allowed && open.warning?.includes('no URL-risk classifier'));
    assert.ok(judgeHost('a.net', { mode: 'normal', failurePolicy: 'closed', whitelist: ['a.net'] }).allowed);
  });

  it('applies the organisation policy and its 403s', () => {
    assert.equal(effectiveThreatRules(NO_THREAT_POLICY, undefined), undefined);
    assert.throws(
      () => effectiveThreatRules(NO_THREAT_POLICY, { blacklist: ['x.com'] }),
      (e: { status: number; code: string }) => e.status === 403 && e.code === 'THREAT_PROTECTION_NOT_ENABLED',
    );
    assert.throws(() => effectiveThreatRules({ ...ON, allowOverrides: false }, { mode: 'normal' }), /overrides are disabled/);
    assert.throws(() => effectiveThreatRules({ ...ON, enforced: true, mode: 'normal' }, { mode: 'off' }), /enforced .* mode cannot be off/);
    assert.deepEqual(effectiveThreatRules({ ...ON, blacklist: ['a.com'], mode: 'normal' }, { blacklist: ['b.com'] }), { blacklist: ['b.com'], mode: 'normal' });
    assert.deepEqual(effectiveThreatRules({ ...ON, blacklist: ['a.com'] }, undefined), { blacklist: ['a.com'] });
  });
});

describe('threat protection in scrapes', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      '/page': html('<p>fine</p>'),
      '/to-localhost': (_q, r) => void r.writeHead(302, { location: `http://localhost:${new URL(server.origin).port}/page` }).end(),
    });
  });
  after(() => server.close());
  const context = (threatPolicy: OrganizationThreatPolicy) => ({ version: 't', now: () => new Date(), threatPolicy });
  const at = (path: string, options: ScrapeOptions, policy: OrganizationThreatPolicy = ON) =>
    scrape({ url: `${server.origin}${path}`, options }, context(policy));

  it('refuses a blacklisted host with 403 before any request', async () => {
    const before = server.requests.length;
    await assert.rejects(at('/page', { threatProtection: { blacklist: ['127.0.0.1'] } }), (e: { status: number; code: string; message: string }) => {
      assert.equal(e.status, 403);
      assert.equal(e.code, 'THREAT_PROTECTION_BLOCKED');
      assert.match(e.message, /127\.0\.0\.1 matches the blacklist entry 127\.0\.0\.1/);
      return true;
    });
    assert.equal(server.requests.length, before);
  });

  it('checks the redirect target too', async () => {
    await assert.rejects(at('/to-localhost', { threatProtection: { blacklist: ['localhost'] } }), /localhost matches the blacklist/);
  });

  it('lets the whitelist win, and reports an open failure policy as a warning', async () => {
    const document = await at('/page', { threatProtection: { blacklist: ['127.0.0.1'], whitelist: ['127.0.0.1'] } });
    assert.equal(document.markdown, 'fine');
    const warned = await at('/page', { threatProtection: { mode: 'normal', failurePolicy: 'open' } });
    assert.match(warned.warning ?? '', /could not check 127\.0\.0\.1/);
    await assert.rejects(at('/page', { threatProtection: { mode: 'normal', failurePolicy: 'closed' } }), /failurePolicy is closed/);
  });

  it('uses the organisation policy without a per-request object', async () => {
    await assert.rejects(at('/page', {}, { ...ON, blockedTlds: ['invalid'], blacklist: ['127.0.0.1'] }), /blacklist/);
    await assert.rejects(at('/page', { threatProtection: { mode: 'off' } }, NO_THREAT_POLICY), /not enabled for this team/);
  });
});

describe('configuration', () => {
  it('reads the project file over the user file', async () => {
    const home = tempDir();
    const xdg = tempDir();
    const userDir = join(xdg, 'webwatch');
    mkdirSync(userDir, { recursive: true });
    writeFileSync(join(userDir, 'config.yaml'), 'threatProtection:\n  enabled: true\n  blacklist: [a.com]\n  failurePolicy: open\n');
    const project = writeFiles({ '.webwatchrc.yaml': 'threatProtection:\n  blacklist: [b.com]\n' });
    const config = await loadConfig({ HOME: home, XDG_CONFIG_HOME: xdg }, project);
    assert.deepEqual(config.threatPolicy, { enabled: true, allowOverrides: true, enforced: false, blacklist: ['b.com'], failurePolicy: 'open' });
    assert.deepEqual(config.files, [join(userDir, 'config.yaml'), join(project, '.webwatchrc.yaml')]);
  });

  it('names the file and the field of a bad setting', async () => {
    const project = writeFiles({ '.webwatchrc.json': JSON.stringify({ threatProtection: { blacklist: ['https://x.com'], enabeld: true } }) });
    await assert.rejects(loadConfig({ HOME: tempDir(), XDG_CONFIG_HOME: tempDir() }, project), (error: { message: string; exitCode: number }) => {
      assert.equal(error.exitCode, 2);
      assert.match(error.message, /\.webwatchrc\.json:1:35: threatProtection\.blacklist\[0\]: must be a domain name without a protocol/);
      assert.match(error.message, /\.webwatchrc\.json:1:52: threatProtection\.enabeld: unknown field "enabeld" \(did you mean "enabled"\?\)/);
      return true;
    });
  });

  it('reaches webwatch scrape: a blocked URL exits 3', async () => {
    const project = writeFiles({ '.webwatchrc.yaml': 'threatProtection:\n  enabled: true\n  blockedTlds: [zip]\n' });
    const result = await run(['scrape', 'http://files.example.zip/x', '--json'], { cwd: project });
    assert.equal(result.code, 3);
    assert.match(JSON.parse(result.stdout).error, /blocked top-level domain zip/);
  });
});
