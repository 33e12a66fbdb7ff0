/**
 * A DOCX, XLSX, ODT or ODS is a ZIP archive: before any reader inflates it, its central
 * directory is read (yauzl: the directory only, nothing is inflated) and the archive is refused
 * when it declares too many entries, too many bytes once inflated, or an entry that inflates
 * past a ratio no office document reaches (a ZIP bomb). Declared sizes can lie: the readers
 * run under a memory cap and a deadline as well, and yauzl checks each entry's real size
 * against its declared one when it is inflated.
 */
import yauzl from 'yauzl';
import { WebwatchError } from '../../errors/webwatch-error.js';

export interface ZipLimits {
  maxEntries: number;
  /** The sum of the entries' inflated sizes. */
  maxTotalBytes: number;
  /** Inflated over compressed size, for entries past `ratioFloorBytes` (small entries compress as they may). */
  maxRatio: number;
  ratioFloorBytes: number;
}

/**
 * Office documents are XML, which deflates 5-30 times; a 50 MB upload of text inflates well
 * under a gigabyte. A classic bomb inflates 1,000 times or more.
 */
export const ZIP_LIMITS: ZipLimits = { maxEntries: 10_000, maxTotalBytes: 1024 * 1024 * 1024, maxRatio: 200, ratioFloorBytes: 1024 * 1024 };

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

export const zipError = (message: string) => new WebwatchError(message, { status: 422, code: 'DOCUMENT_UNREADABLE' });

/** The archive's entries, as its central directory declares them; rejects an archive past the limits or not a ZIP at all. */
export function checkZip(body: Uint8Array, limits: ZipLimits = ZIP_LIMITS): Promise<ZipEntryInfo[]> {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (error, zip) => {
      if (error || !zip) return reject(zipError(`the file is not a readable ZIP archive (${error?.message ?? 'no archive'}): it may be truncated`));
      if (zip.entryCount > limits.maxEntries) {
        zip.close();
        return reject(zipError(`the archive has ${zip.entryCount.toLocaleString('en')} entries, over the limit of ${limits.maxEntries.toLocaleString('en')}`));
      }
      const entries: ZipEntryInfo[] = [];
      let total = 0;
      const fail = (message: string) => {
        zip.close();
        reject(zipError(message));
      };
      zip.on('entry', (entry: yauzl.Entry) => {
        const info = { name: entry.fileName, compressedSize: entry.compressedSize, uncompressedSize: entry.uncompressedSize };
        total += info.uncompressedSize;
        if (total > limits.maxTotalBytes) return fail(`the archive inflates to more than ${limits.maxTotalBytes / 1024 / 1024} MiB (a ZIP bomb?)`);
        if (info.uncompressedSize > limits.ratioFloorBytes && info.uncompressedSize > info.compressedSize * limits.maxRatio) {
          const ratio = Math.round(info.uncompressedSize / Math.max(1, info.compressedSize));
          return fail(
            `the archive's entry ${JSON.stringify(info.name.slice(0, 100))} inflates ${ratio} times, over the limit of ${limits.maxRatio} (a ZIP bomb?)`,
          );
        }
        entries.push(info);
        zip.readEntry();
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', (zipFailure: Error) => fail(`the ZIP archive is damaged: ${zipFailure.message}`));
      zip.readEntry();
    });
  });
}
