/** A document's own properties: read from its small XML parts, never an error, never an entity expanded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentProperties, propertiesHead } from '../../../src/engine/documents/properties.js';
import { zip } from '../../helpers/zip.js';

const CORE_NS =
  'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"';

describe('document properties', () => {
  it('reads OOXML core and app properties by local name, and ODF meta with its page count', async () => {
    const docx = zip([
      {
        name: 'docProps/core.xml',
        data: `<?xml version="1.0"?><cp:coreProperties ${CORE_NS}><dc:title>Terms &amp; conditions</dc:title><dc:creator>Ada</dc:creator><dcterms:created>2026-01-02T03:04:05Z</dcterms:created><dc:language>en-GB</dc:language></cp:coreProperties>`,
      },
      {
        name: 'docProps/app.xml',
        data: '<?xml version="1.0"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>12</Pages></Properties>',
      },
      { name: 'word/document.xml', data: '<w:document/>' },
    ]);
    assert.deepEqual(await documentProperties(docx, 'docx'), {
      title: 'Terms & conditions',
      author: 'Ada',
      created: '2026-01-02T03:04:05Z',
      language: 'en-GB',
      pages: 12,
    });
    const odt = zip([
      {
        name: 'meta.xml',
        data: '<office:document-meta xmlns:office="o" xmlns:meta="m" xmlns:dc="d"><office:meta><dc:title>Tender</dc:title><dc:creator>Editor</dc:creator><meta:initial-creator>Writer</meta:initial-creator><meta:document-statistic meta:page-count="3"/></office:meta></office:document-meta>',
      },
    ]);
    assert.deepEqual(await documentProperties(odt, 'odt'), { title: 'Tender', author: 'Writer', pages: 3 });
  });

  it('expands no entity of a DOCTYPE, internal or external, and fetches nothing', async () => {
    const xxe = zip([
      {
        name: 'docProps/core.xml',
        data: `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY x SYSTEM "file:///etc/passwd">]><cp:coreProperties ${CORE_NS}><dc:title>&b;&x;Plain</dc:title></cp:coreProperties>`,
      },
    ]);
    const { title } = await documentProperties(xxe, 'docx');
    assert.doesNotMatch(title ?? '', /aaaa|root:/);
    assert.match(title ?? '', /Plain$/);
  });

  it('gives none for a damaged archive, a missing part, a format without parts, or a part too large', async () => {
    assert.deepEqual(await documentProperties(Buffer.from('PK\x03\x04 not really'), 'xlsx'), {});
    assert.deepEqual(await documentProperties(zip([{ name: 'content.xml', data: '<x/>' }]), 'ods'), {});
    assert.deepEqual(await documentProperties(Buffer.from('{\\rtf1}'), 'rtf'), {});
    const huge = `<cp:coreProperties ${CORE_NS}><dc:title>${'t'.repeat(2 * 1024 * 1024)}</dc:title></cp:coreProperties>`;
    assert.deepEqual(await documentProperties(zip([{ name: 'docProps/core.xml', data: huge }]), 'docx'), {});
  });

  it('writes them as a head whose values cannot close their attribute or element', () => {
    const head = propertiesHead({ title: '</title><script>x</script>', author: '" onload="x' });
    assert.match(head, /<title>&lt;\/title&gt;&lt;script&gt;x&lt;\/script&gt;<\/title>/);
    assert.match(head, /<meta name="author" content="&quot; onload=&quot;x">/);
    assert.equal(propertiesHead({}), '<head><meta charset="utf-8"></head>');
  });
});
