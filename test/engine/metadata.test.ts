/** Page titles as a reader would give them, from the metadata a page declares, in order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDocument } from 'htmlparser2';
import { extractMetadata } from '../../src/engine/content/metadata.js';

const titleOf = (html: string) => extractMetadata(parseDocument(html), 'https://example.com/a').title;

describe('titles (pattern 7)', () => {
  it('reads Dublin Core from name or property, whichever attribute carries it', () => {
    assert.equal(titleOf('<head><meta name="DC.title" content="By name"><title>Site | By name</title></head>'), 'By name');
    assert.equal(titleOf('<head><meta property="dc:title" content="By property"><title>t</title></head>'), 'By property');
    assert.equal(titleOf('<head><meta property="dcterms:title" content="Terms"><title>t</title></head>'), 'Terms');
    // Both attributes on one tag: each names a field.
    const both = extractMetadata(parseDocument('<head><meta property="og:title" name="dc.title" content="Both"></head>'), 'https://example.com/');
    assert.equal(both.dcTitle, 'Both');
    assert.equal(both.ogTitle, 'Both');
  });

  it('prefers the article headline declared in JSON-LD, not the site name there', () => {
    const ld = (data: object) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
    assert.equal(
      titleOf(
        `<head>${ld({ '@type': 'NewsArticle', headline: 'The headline', publisher: { '@type': 'Organization', name: 'Site' } })}<meta property="og:title" content="Social title"></head>`,
      ),
      'The headline',
    );
    assert.equal(
      titleOf(`<head>${ld({ '@type': 'NewsArticle', name: 'Site', headline: 'Real headline', publisher: { name: 'Site' } })}</head>`),
      'Real headline',
    );
    assert.equal(
      titleOf(
        `<head>${ld({
          '@graph': [
            { '@type': 'Organization', name: 'Org' },
            { '@type': 'BlogPosting', headline: 'In a graph &amp; escaped' },
          ],
        })}</head>`,
      ),
      'In a graph & escaped',
    );
    assert.equal(titleOf(`<head>${ld({ '@type': 'Organization', name: 'Only an organization' })}<title>The page</title></head>`), 'The page');
    assert.equal(titleOf('<head><script type="application/ld+json">{ not json</script><title>Broken data</title></head>'), 'Broken data');
  });

  it('falls back to parsely-title, then to the first <h1>, when a page has no <title>', () => {
    assert.equal(titleOf('<head><meta name="parsely-title" content="From Parse.ly"></head><body><h1>Heading</h1></body>'), 'From Parse.ly');
    assert.equal(titleOf('<body><svg><title>icon</title></svg><h1>  The first\n heading </h1><h1>Second</h1></body>'), 'The first heading');
  });

  it("never takes an SVG icon's <title> for the page's", () => {
    assert.equal(titleOf('<body><svg><title>menu</title></svg><title>Real title</title></body>'), 'Real title');
  });
});
