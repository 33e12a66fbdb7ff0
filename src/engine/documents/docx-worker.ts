/**
 * The DOCX reader's thread (docx.ts starts one per document): mammoth, which parses the whole
 * document in one go, so that a document too large for its heap ends this thread alone, and
 * the thread that asked goes on answering meanwhile.
 */
import { parentPort } from 'node:worker_threads';
import mammoth from 'mammoth';

/** Besides mammoth's own map (headings, lists, footnotes): a document's title is its first heading. */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => p:fresh"];

parentPort?.once('message', async (body: Uint8Array) => {
  try {
    // No external file is read: a picture linked to file:///etc/passwd stays out (mammoth before
    // 1.11 read it); a linked http picture is never fetched (mammoth reads none).
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(body.buffer, body.byteOffset, body.byteLength) },
      { styleMap: STYLE_MAP, externalFileAccess: false },
    );
    parentPort?.postMessage({ html: result.value });
  } catch (error) {
    parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
