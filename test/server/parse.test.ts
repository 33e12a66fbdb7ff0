/**
 * POST /v2/parse and GET /v2/parse/formats on webwatch serve, through the hosted JS SDK and as
 * raw multipart requests: a document read by its bytes, the rules of the hosted API refused as
 * it refuses them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { PARSE_MAX_BYTES } from '../../src/spec/parse.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';
import { documentToolsMissing, scannedText } from '../helpers/documents.js';
import { imageTextAvailable } from '../../src/engine/documents/image-text.js';

describe('POST /v2/parse', { skip: documentToolsMissing }, () => {
  let served: ServingWebwatch;
  let key: string;
  let docx: Buffer;
  before(async () => {
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
    docx = execFileSync('pandoc', ['-f', 'markdown', '-t', 'docx', '-o', '-'], { input: '# Tender\n\n| Lot | Price |\n|---|---|\n| A | 100 |\n' });
  });
  after(() => served.stop());

  const post = (form: FormData, auth = key) => fetch(`${served.url}/parse`, { method: 'POST', headers: { authorization: `Bearer ${auth}` }, body: form });
  const form = (parts: Record<string, Blob | string>, filename = 'tender.docx') => {
    const data = new FormData();
    for (const [name, value] of Object.entries(parts)) {
      if (typeof value === 'string') data.append(name, value);
      else data.append(name, value, filename);
    }
    return data;
  };

  it('the hosted SDK parses a DOCX and an HTML file, named by their file', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const document = await client.parse({ data: docx, filename: 'tender.docx' }, { formats: ['markdown', 'html'] });
    assert.match(document.markdown ?? '', /Tender/);
    assert.match(document.markdown ?? '', /\| A \| 100 \|/);
    assert.match(document.html ?? '', /<table/);
    assert.equal(document.metadata?.sourceFile, 'tender.docx');
    assert.equal((document.metadata as Record<string, unknown>).sourceURL, undefined);
    const page = await client.parse({ data: '<html><title>Notes</title><main><p>Plain notes.</p></main></html>', filename: 'notes.html' });
    assert.match(page.markdown ?? '', /Plain notes\./);
    assert.equal(page.metadata?.title, 'Notes');
  });

  it('reads the file by its bytes when its name lies', async () => {
    const response = await post(form({ file: new Blob([new Uint8Array(docx)]) }, 'tender.odt'));
    assert.equal(response.status, 200);
    const body = (await response.json()) as { data: { markdown: string; warning?: string } };
    assert.match(body.data.markdown, /Tender/);
    assert.match(body.data.warning ?? '', /labelled as ODT, the file is DOCX/);
  });

  it('answers 400 without a file part, 415 for a type it does not read, 413 past 50 MB, 400 for options of fetching', async () => {
    const missing = await post(form({ options: '{}' }));
    assert.equal(missing.status, 400);
    assert.deepEqual(((await missing.json()) as { details: unknown }).details, [{ path: 'file', message: 'a "file" part is required' }]);
    const unsupported = await post(form({ file: new Blob(['MZ binary']) }, 'setup.exe'));
    assert.equal(unsupported.status, 415);
    assert.equal(((await unsupported.json()) as { code: string }).code, 'UNSUPPORTED_FILE_TYPE');
    const huge = await post(form({ file: new Blob([new Uint8Array(PARSE_MAX_BYTES + 1)]) }, 'big.pdf'));
    assert.equal(huge.status, 413);
    const fetching = await post(form({ options: JSON.stringify({ waitFor: 1000, formats: ['screenshot'] }), file: new Blob([new Uint8Array(docx)]) }));
    assert.equal(fetching.status, 400);
    const text = JSON.stringify(await fetching.json());
    assert.match(text, /waitFor/);
    assert.match(text, /screenshot is not a format of parse/);
    assert.equal((await post(form({ file: new Blob([new Uint8Array(docx)]) }), 'not-a-key')).status, 401);
  });

  // The hosted SDK's own e2e cases of parse (its src/__tests__/e2e/v2/parse.test.ts), as it runs them.
  it("passes the hosted SDK's parse e2e cases: an HTML upload for 1 credit, bytes named .png that are no image refused", async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const html = '<!DOCTYPE html><html><body><h1>JS SDK Parse E2E</h1><p>multipart upload body</p></body></html>';
    const document = await client.parse({ data: html, filename: 'parse-e2e.html', contentType: 'text/html' }, { formats: ['markdown'] });
    assert.match(document.markdown ?? '', /JS SDK Parse E2E/);
    assert.equal(document.metadata?.creditsUsed, 1);
    await assert.rejects(
      client.parse({ data: Buffer.from('image-data'), filename: 'parse-e2e.png', contentType: 'image/png' }, { formats: ['markdown'] }),
      imageTextAvailable() ? /no PNG or JPEG image/ : /no tesseract-ocr/,
    );
  });

  it('reads an image by OCR where tesseract is installed', { skip: imageTextAvailable() ? undefined : 'no tesseract-ocr' }, async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const document = await client.parse({ data: scannedText(['Tender closes on Friday'], 'png'), filename: 'notice.png' });
    assert.match(document.markdown ?? '', /^Tender closes on Friday$/m);
    assert.equal(document.metadata?.sourceFile, 'notice.png');
    assert.equal(document.metadata?.creditsUsed, 1);
  });

  it('lists what it reads: documents available, images where tesseract is installed', async () => {
    const response = await fetch(`${served.url}/parse/formats`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(response.headers.get('cache-control'), 'private, max-age=3600');
    const { data } = (await response.json()) as { data: { formats: { format: string; kind: string; available: boolean; extensions: string[] }[] } };
    const docxEntry = data.formats.find((entry) => entry.format === 'docx');
    assert.deepEqual(docxEntry && { kind: docxEntry.kind, available: docxEntry.available, extensions: docxEntry.extensions }, {
      kind: 'document',
      available: true,
      extensions: ['.docx'],
    });
    const images = data.formats.filter((entry) => entry.kind === 'image');
    assert.deepEqual(
      images.map((entry) => entry.format),
      ['png', 'jpeg'],
    );
    assert.ok(images.every((entry) => entry.available === imageTextAvailable()));
  });
});
