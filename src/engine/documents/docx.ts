/**
 * A DOCX to HTML by mammoth (bench/README.md, "Office documents": the best recall of the three
 * readers measured, in 59 ms a document where LibreOffice takes 1.1 s), on a thread of its own
 * per document: capped in heap, stopped at the deadline or on abort, so that a document that
 * needs too much fails alone and never blocks the thread that asked.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';
import { bundleWorker } from '../../lib/bundle-worker.js';

const WORKER = new URL('./docx-worker.js', import.meta.url);

/** The heap of the reader's thread: a 500-page report needs under 200 MB. */
export const DOCX_HEAP_MB = 512;

export interface DocxLimits {
  deadline: number;
  signal?: AbortSignal;
  heapMb?: number;
}

const unreadable = (why: string) => new WebwatchError(`the DOCX file could not be read: ${why}`, { status: 422, code: 'DOCUMENT_UNREADABLE' });

export async function docxToHtml(body: Uint8Array, limits: DocxLimits): Promise<string> {
  if (limits.signal?.aborted) throw limits.signal.reason;
  if (Date.now() >= limits.deadline) throw unreadable('it took longer than the time left');
  const { Worker } = await import('node:worker_threads');
  if (limits.signal?.aborted) throw limits.signal.reason;
  const heapMb = limits.heapMb ?? DOCX_HEAP_MB;
  const worker = bundleWorker(Worker, 'docx-worker', WORKER, { resourceLimits: { maxOldGenerationSizeMb: heapMb }, stdout: false, stderr: false });
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => finish(() => reject(unreadable('it took longer than the time left'))), Math.min(limits.deadline - Date.now(), 2 ** 31 - 1));
    const onAbort = () => finish(() => reject(limits.signal?.reason));
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: { html?: string; error?: string }) =>
      finish(() => (reply.html === undefined ? reject(unreadable(reply.error ?? 'the reader gave nothing')) : resolve(reply.html))),
    );
    worker.once('error', (error: Error & { code?: string }) =>
      finish(() => reject(unreadable(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `it needs more than the ${heapMb} MB the reader may use` : error.message))),
    );
    worker.once('exit', (code) => finish(() => reject(unreadable(`the reader stopped (exit code ${code})`))));
    // A copy is sent: the caller keeps its bytes (a monitor compares them; a retry reads them again).
    worker.postMessage(body);
  });
}
