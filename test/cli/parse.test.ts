/** `webwatch parse`: local files read on the embedded engine, or uploaded to an API's POST /v2/parse. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';
import { documentToolsMissing, scannedText } from '../helpers/documents.js';
import { imageTextAvailable } from '../../src/engine/documents/image-text.js';

describe('webwatch parse', { skip: documentToolsMissing }, () => {
  let dir: string;
  let served: ServingWebwatch;
  let key: string;
  before(async () => {
    dir = writeFiles({ 'notes.html': '<title>Notes</title><main><h1>Notes</h1><p>Bring the keys.</p></main>' });
    execFileSync('pandoc', ['-f', 'markdown', '-t', 'docx', '-o', join(dir, 'terms.docx')], { input: '# Terms\n\nPay monthly.\n' });
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(() => served.stop());
  const env = () => ({ WEBWATCH_HOME: tempDir() });

  it('prints the markdown of a file, and of standard input named by --filename', async () => {
    const file = await run(['parse', join(dir, 'terms.docx')], { env: env() });
    assert.equal(file.code, 0, file.stderr);
    assert.match(file.stdout, /^# Terms\n\nPay monthly\.\n$/);
    const stdin = await run(['parse', '-', '--filename', 'terms.docx', '--json'], { env: env(), stdin: readFileSync(join(dir, 'terms.docx')) });
    assert.equal(stdin.code, 0, stdin.stderr);
    const { data } = JSON.parse(stdin.stdout) as { data: { markdown: string; metadata: { sourceFile: string } } };
    assert.equal(data.metadata.sourceFile, 'terms.docx');
    assert.match(data.markdown, /Pay monthly\./);
  });

  it('writes a file per input into a directory', async () => {
    const out = join(tempDir(), 'markdown');
    const result = await run(['parse', join(dir, 'terms.docx'), join(dir, 'notes.html'), '-o', out], { env: env() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(readFileSync(join(out, 'terms.md'), 'utf8'), /Pay monthly\./);
    assert.match(readFileSync(join(out, 'notes.md'), 'utf8'), /Bring the keys\./);
  });

  it('uploads to a remote API, the same document coming back', async () => {
    const result = await run(['parse', join(dir, 'terms.docx'), '--api-url', served.url, '--api-key', key, '--json'], { env: env() });
    assert.equal(result.code, 0, result.stderr);
    const { data } = JSON.parse(result.stdout) as { data: { markdown: string; metadata: { sourceFile: string } } };
    assert.match(data.markdown, /Pay monthly\./);
    assert.equal(data.metadata.sourceFile, 'terms.docx');
  });

  it('reads a scanned image by OCR', { skip: imageTextAvailable() ? undefined : 'no tesseract-ocr' }, async () => {
    const scans = writeFiles({});
    writeFileSync(join(scans, 'receipt.jpg'), scannedText(['Paid in full'], 'jpeg'));
    const result = await run(['parse', join(scans, 'receipt.jpg')], { env: env() });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Paid in full\n');
  });

  it('says what is wrong with its input, exit 2, before any work', async () => {
    const cases: [string[], RegExp][] = [
      [['parse', '-'], /standard input needs --filename/],
      [['parse', join(dir, 'missing.docx')], /cannot read .*missing\.docx: no such file/],
      [['parse', join(dir, 'notes.html'), '--format', 'screenshot'], /invalid --format/],
    ];
    for (const [args, message] of cases) {
      const result = await run(args, { env: env() });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
    }
    const unknown = await run(['parse', join(dir, 'notes.html').replace('notes.html', 'x.exe')], { env: env() });
    assert.notEqual(unknown.code, 0);
  });
});
