/**
 * What a document says of itself: its title, author, dates, language and page count, read from
 * the small XML parts its format keeps them in (OOXML's docProps/core.xml and app.xml, ODF's
 * meta.xml), and written as the `<head>` of its HTML so that the page pipeline's metadata
 * (title, author, dcterms.*) reads them as it reads a page's. Readers that give the body only
 * (a DOCX, a workbook) get their head here; LibreOffice writes its own.
 */
import type { Element } from 'domhandler';
import { findOne, isTag, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import yauzl from 'yauzl';
import type { DocumentKind } from './detect.js';

export interface DocumentProperties {
  title?: string;
  author?: string;
  created?: string;
  modified?: string;
  language?: string;
  subject?: string;
  keywords?: string;
  description?: string;
  /** As the application that saved it counted them (Word, LibreOffice); absent when it did not. */
  pages?: number;
}

/** A properties part is a few hundred bytes; past this it is not one. */
const MAX_PART_BYTES = 1024 * 1024;

const PARTS: Partial<Record<DocumentKind, string[]>> = {
  docx: ['docProps/core.xml', 'docProps/app.xml'],
  xlsx: ['docProps/core.xml', 'docProps/app.xml'],
  odt: ['meta.xml'],
  ods: ['meta.xml'],
};

/** The document's properties; none (never an error) when its parts are missing or damaged. */
export async function documentProperties(body: Uint8Array, kind: DocumentKind): Promise<DocumentProperties> {
  const names = PARTS[kind];
  if (!names) return {};
  const parts = await readParts(body, new Set(names)).catch(() => new Map<string, string>());
  return kind === 'odt' || kind === 'ods'
    ? odfProperties(parts.get('meta.xml'))
    : ooxmlProperties(parts.get('docProps/core.xml'), parts.get('docProps/app.xml'));
}

/** By local name: prefixes are the writer's choice (`dc:title`, `ns0:title`). */
function field(root: Element[], localName: string): string | undefined {
  const element = findOne((node) => node.name === localName || node.name.endsWith(`:${localName}`), root, true);
  const text = element ? textContent(element).replace(/\s+/g, ' ').trim() : '';
  return text || undefined;
}

const rootsOf = (xml: string | undefined): Element[] => (xml ? parseDocument(xml, { xmlMode: true }).children.filter(isTag) : []);

const pageCount = (value: string | undefined) => {
  const pages = Number(value);
  return Number.isInteger(pages) && pages > 0 ? pages : undefined;
};

function compact(properties: DocumentProperties): DocumentProperties {
  return Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined)) as DocumentProperties;
}

function ooxmlProperties(core: string | undefined, app: string | undefined): DocumentProperties {
  const c = rootsOf(core);
  const a = rootsOf(app);
  return compact({
    title: field(c, 'title'),
    author: field(c, 'creator'),
    created: field(c, 'created'),
    modified: field(c, 'modified'),
    language: field(c, 'language'),
    subject: field(c, 'subject'),
    keywords: field(c, 'keywords'),
    description: field(c, 'description'),
    pages: pageCount(field(a, 'Pages')),
  });
}

function odfProperties(meta: string | undefined): DocumentProperties {
  const m = rootsOf(meta);
  const statistic = findOne((node) => node.name === 'meta:document-statistic', m, true);
  return compact({
    title: field(m, 'title'),
    author: field(m, 'initial-creator') ?? field(m, 'creator'),
    created: field(m, 'creation-date'),
    modified: field(m, 'date'),
    language: field(m, 'language'),
    subject: field(m, 'subject'),
    keywords: field(m, 'keyword'),
    description: field(m, 'description'),
    pages: pageCount(statistic?.attribs['meta:page-count']),
  });
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The properties as an HTML head, in the names the page pipeline's metadata reads. */
export function propertiesHead(properties: DocumentProperties): string {
  const meta = (name: string, value: string | undefined) => (value ? `<meta name="${name}" content="${escapeAttribute(value)}">` : '');
  return [
    '<head><meta charset="utf-8">',
    properties.title ? `<title>${escapeAttribute(properties.title)}</title>` : '',
    meta('author', properties.author),
    meta('description', properties.description),
    meta('keywords', properties.keywords),
    meta('dcterms.subject', properties.subject),
    meta('dcterms.created', properties.created),
    meta('dcterms.modified', properties.modified),
    properties.language ? `<meta http-equiv="content-language" content="${escapeAttribute(properties.language)}">` : '',
    '</head>',
  ].join('');
}

/** The named entries of the archive, each at most MAX_PART_BYTES; the rest is not inflated. */
function readParts(body: Uint8Array, wanted: ReadonlySet<string>): Promise<Map<string, string>> {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('no archive'));
      const parts = new Map<string, string>();
      const done = () => {
        zip.close();
        resolve(parts);
      };
      zip.on('error', reject);
      zip.on('end', () => resolve(parts));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!wanted.has(entry.fileName) || entry.uncompressedSize > MAX_PART_BYTES) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          let size = 0;
          stream.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_PART_BYTES) return stream.destroy(new Error('part too large'));
            chunks.push(chunk);
          });
          stream.on('error', reject);
          stream.on('end', () => {
            parts.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            if (parts.size === wanted.size) done();
            else zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}
