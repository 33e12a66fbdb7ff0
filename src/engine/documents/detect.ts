/**
 * Which office document a response is, if any (light: no reader loads). The file's own bytes
 * decide where they can (a ZIP that holds word/document.xml is a DOCX whatever its name or
 * label); the content type and the URL's extension only tell apart what the bytes cannot (an
 * OLE2 file is a DOC or an XLS; CSV has no signature).
 */
import { PARSE_FORMATS } from '../../spec/parse.js';

export type DocumentKind = 'docx' | 'doc' | 'odt' | 'rtf' | 'xlsx' | 'xls' | 'ods' | 'csv';

export const DOCUMENT_KINDS: readonly DocumentKind[] = ['docx', 'doc', 'odt', 'rtf', 'xlsx', 'xls', 'ods', 'csv'];

/** Workbooks are read as one section per sheet (sheets.ts); CSV is one table already. */
export const isWorkbook = (kind: DocumentKind) => kind === 'xlsx' || kind === 'xls' || kind === 'ods';

const isKind = (name: string): name is DocumentKind => (DOCUMENT_KINDS as readonly string[]).includes(name);

/** The media types of each kind, as parse lists them (spec/parse.ts), and the older names still served. */
const KIND_OF_TYPE: Record<string, DocumentKind> = {
  ...Object.fromEntries(PARSE_FORMATS.filter((format) => isKind(format.format)).flatMap((format) => format.mimeTypes.map((type) => [type, format.format]))),
  'application/x-rtf': 'rtf',
  'application/csv': 'csv',
  'application/x-msexcel': 'xls',
  'application/x-excel': 'xls',
};

const ZIP = Buffer.from('PK\x03\x04', 'latin1');
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const RTF = Buffer.from('{\\rtf', 'latin1');
/** ODF stores its media type first, uncompressed, as the file `mimetype` (ODF 1.2, 3.3). */
const ODF_MIMETYPE = Buffer.from('mimetypeapplication/vnd.oasis.opendocument.', 'latin1');
const utf16 = (text: string) => Buffer.from(text, 'utf16le');
const WORD_STREAM = utf16('WordDocument');
const WORKBOOK_STREAMS = [utf16('Workbook'), utf16('Book')];

/** The extension of a URL's or file name's last path segment, lower case, without the dot. */
export function extensionOf(urlOrName: string): string {
  let path = urlOrName;
  try {
    path = new URL(urlOrName).pathname;
  } catch {
    // A file name, not a URL.
  }
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The kind a URL's or file name's extension names, if any. */
function kindOfName(name: string): DocumentKind | undefined {
  const extension = extensionOf(name);
  return isKind(extension) ? extension : undefined;
}

const bytes = (body: Uint8Array) => Buffer.from(body.buffer, body.byteOffset, body.byteLength);

/** The kind the bytes prove, when they do: a ZIP of OOXML or ODF, an OLE2 file, RTF. */
function kindBySignature(body: Buffer, claimed: DocumentKind | undefined): DocumentKind | 'zip' | 'ole2' | undefined {
  if (body.subarray(0, RTF.length).equals(RTF)) return 'rtf';
  if (body.subarray(0, OLE2.length).equals(OLE2)) {
    // The directory names its streams in UTF-16: a Word file has WordDocument, Excel's Workbook (Book before 97).
    if (body.indexOf(WORD_STREAM) >= 0) return 'doc';
    if (WORKBOOK_STREAMS.some((name) => body.indexOf(name) >= 0)) return 'xls';
    return claimed === 'doc' || claimed === 'xls' ? claimed : 'ole2';
  }
  if (body.subarray(0, ZIP.length).equals(ZIP)) {
    const odf = body.subarray(30, 30 + ODF_MIMETYPE.length + 20);
    if (odf.subarray(0, ODF_MIMETYPE.length).equals(ODF_MIMETYPE)) {
      const rest = odf.subarray(ODF_MIMETYPE.length).toString('latin1');
      if (rest.startsWith('text')) return 'odt';
      if (rest.startsWith('spreadsheet')) return 'ods';
    }
    // OOXML's part names are in the local headers and again in the central directory at the end.
    if (body.indexOf('word/document.xml', 0, 'latin1') >= 0) return 'docx';
    if (body.indexOf('xl/workbook.xml', 0, 'latin1') >= 0) return 'xlsx';
    return 'zip';
  }
  return undefined;
}

export interface DocumentDetection {
  kind: DocumentKind;
  /** What the content type or the name said, when the bytes say otherwise. */
  claimed?: DocumentKind;
}

/**
 * The document a response is, or undefined for anything else (HTML, PDF, images...).
 * `contentType` is the bare media type, lower case; `name` is the URL or the uploaded file's name.
 */
export function detectDocument(contentType: string, body: Uint8Array, name: string): DocumentDetection | undefined {
  const byType = KIND_OF_TYPE[contentType];
  const byExtension = kindOfName(name);
  // A generic label says nothing: the name may.
  const generic = contentType === '' || contentType === 'application/octet-stream' || contentType === 'binary/octet-stream';
  const claimed = byType ?? (generic || contentType === 'text/plain' || contentType === 'application/zip' ? byExtension : undefined);
  const signed = kindBySignature(bytes(body), claimed);
  if (signed === 'zip' || signed === 'ole2') return undefined;
  if (signed) return { kind: signed, ...(claimed && claimed !== signed && { claimed }) };
  // No signature: only CSV is text by nature; a "DOCX" of other bytes is not read as one.
  if (claimed === 'csv') return { kind: 'csv' };
  return undefined;
}

/** Whether the content type or the name claims an office document the bytes do not bear out (a truncated or mislabelled file). */
export function claimsDocument(contentType: string, name: string): DocumentKind | undefined {
  const claimed =
    KIND_OF_TYPE[contentType] ?? ((DOCUMENT_KINDS as readonly string[]).includes(extensionOf(name)) ? (extensionOf(name) as DocumentKind) : undefined);
  return claimed === 'csv' ? undefined : claimed;
}
