/**
 * The branding format: the system's Chromium renders a page on loopback whose brand lives in its
 * CSS (custom properties, a media query, a class cascade), and the profile reads the computed
 * result, with no model.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { brandingProfile, parseColor } from '../../src/engine/extract/branding.js';
import { scrape, type ScrapeContext } from '../../src/engine/scrape/scrape.js';
import { tempDir } from '../helpers/files.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const chromium = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

const BRANDED = `<!doctype html><html><head><title>Home | Acme Rockets</title>
<meta property="og:site_name" content="Acme Rockets"><meta name="theme-color" content="#0a2540">
<link rel="icon" href="/favicon.ico">
<style>
  :root { --brand: #e4572e; --ink: #1b1b1b; }
  body { font-family: "Trebuchet MS", Helvetica, sans-serif; font-size: 16px; line-height: 24px; color: var(--ink); background: #ffffff; margin: 0; }
  h1 { font-family: Georgia, serif; font-size: 40px; line-height: 48px; font-weight: 700; }
  .btn { background: var(--brand); color: #fff; border-radius: 6px; border: 1px solid var(--brand); padding: 8px 16px; }
  .btn.ghost { background: #eeeeee; color: var(--ink); }
  main a { color: #2e86ab; }
  small { color: #6b6b6b; font-size: 13px; }
  @media (min-width: 1000px) { h1 { font-size: 48px; } }
</style></head>
<body><header><a href="/"><img class="site-logo" src="/logo.png" alt="Acme Rockets" width="120" height="40"></a></header>
<main><h1>Rockets for everyone</h1><p>Read <a href="/docs">the docs</a>.</p>
<button class="btn">Buy now</button> <a class="btn" href="/start">Start</a> <button class="btn ghost">Later</button>
<small>Prices in euros.</small></main></body></html>`;

describe('the branding format', { skip: !chromium && 'no Chromium: apt-get install chromium' }, () => {
  let site: TestServer;
  const context = (): ScrapeContext => ({ version: 'test', now: () => new Date(), browser: { env: process.env, artifactsDir: tempDir() } });
  before(async () => {
    site = await startServer({ '/': html(BRANDED), '/logo.png': html('') });
  });
  after(async () => {
    await closeBrowserIfOpen();
    await site.close();
  });

  it('reads colours, fonts, sizes, buttons and the logo from the computed styles, with no model', async () => {
    const document = await scrape({ url: `${site.origin}/`, options: { formats: ['branding'] } }, context());
    const branding = document.branding!;
    assert.equal(branding.colorScheme, 'light');
    assert.equal(branding.brandName, 'Acme Rockets');
    assert.equal(branding.colors.primary, '#E4572E', 'the most used brand colour of the buttons, through the custom property');
    assert.equal(branding.colors.background, '#FFFFFF');
    assert.equal(branding.colors.textPrimary, '#1B1B1B');
    assert.equal(branding.colors.link, '#2E86AB');
    assert.equal(branding.colors.textSecondary, '#6B6B6B');
    assert.equal(branding.typography.fontFamilies?.primary, 'Trebuchet MS');
    assert.equal(branding.typography.fontFamilies?.heading, 'Georgia');
    assert.deepEqual(branding.typography.fontStacks?.primary, ['Trebuchet MS', 'Helvetica', 'sans-serif']);
    assert.equal(branding.typography.fontSizes?.h1, '48px', 'the media query for the 1280px viewport applied');
    assert.equal(branding.typography.lineHeights?.body, 1.5);
    assert.deepEqual(branding.components.buttonPrimary, { background: '#E4572E', textColor: '#FFFFFF', borderColor: '#E4572E', borderRadius: '6px' });
    assert.equal(branding.components.buttonSecondary?.background, '#EEEEEE');
    assert.equal(branding.logo, `${site.origin}/logo.png`);
    assert.equal(branding.images.favicon, `${site.origin}/favicon.ico`);
    assert.equal(branding.fieldSources.logo, 'markup (named logo)');
    assert.equal(document.markdown, undefined, 'only the formats asked for');
  });

  it('a dark page is dark; transparent colours are not brand colours', () => {
    const style = {
      color: 'rgb(240, 240, 240)',
      background: 'rgb(10, 10, 20)',
      fontFamily: 'Inter, sans-serif',
      fontSize: '16px',
      fontWeight: '400',
      lineHeight: 'normal',
    };
    const profile = brandingProfile({
      sample: {
        html: style,
        body: style,
        headings: {},
        buttons: [{ ...style, background: 'rgba(0, 0, 0, 0)' }],
        loadedFonts: [{ family: 'Inter', weight: '400', style: 'normal' }],
        logos: [],
      },
      pageUrl: 'https://example.com/',
    });
    assert.equal(profile.colorScheme, 'dark');
    assert.equal(profile.colors.primary, undefined);
    assert.equal(profile.logo, null);
    assert.deepEqual(profile.fonts, [{ family: 'Inter', role: 'body, loaded' }]);
    assert.deepEqual(parseColor('rgb(1 2 3 / 50%)'), { r: 1, g: 2, b: 3, a: 0.5 });
    assert.equal(parseColor('hsl(10, 20%, 30%)'), undefined);
  });
});
