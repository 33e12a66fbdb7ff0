/**
 * POST /v2/parse: a file uploaded (multipart: a `file` part and an optional `options` JSON part)
 * and read as a scrape of it would read it. The hosted API's rules: files up to 50 MB, the
 * scrape options but those about fetching, and the formats but those of a browser or a page's
 * history. GET /v2/parse/formats lists what is accepted, from the same table.
 */
import { WebwatchError } from '../errors/webwatch-error.js';
import type { Problem } from './issues.js';

export const PARSE_MAX_BYTES = 50 * 1024 * 1024;

/** Scrape options that concern fetching a page, which an upload is not (the hosted SDK's ParseOptions). */
export const PARSE_EXCLUDED_OPTIONS = [
  'waitFor',
  'mobile',
  'actions',
  'location',
  'maxAge',
  'minAge',
  'storeInCache',
  'lockdown',
  'proxy',
  'threatProtection',
  'toolDetail',
] as const;

/** Formats that need a browser or a page's history. */
export const PARSE_EXCLUDED_FORMATS = ['screenshot', 'changeTracking', 'branding', 'audio', 'video'] as const;

export interface ParseFormat {
  format: string;
  kind: 'document' | 'image';
  extensions: string[];
  mimeTypes: string[];
}

export const PARSE_FORMATS: readonly ParseFormat[] = [
  { format: 'html', kind: 'document', extensions: ['.html', '.htm'], mimeTypes: ['text/html', 'application/xhtml+xml'] },
  { format: 'pdf', kind: 'document', extensions: ['.pdf'], mimeTypes: ['application/pdf'] },
  { format: 'docx', kind: 'document', extensions: ['.docx'], mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'] },
  { format: 'doc', kind: 'document', extensions: ['.doc'], mimeTypes: ['application/msword'] },
  { format: 'odt', kind: 'document', extensions: ['.odt'], mimeTypes: ['application/vnd.oasis.opendocument.text'] },
  { format: 'rtf', kind: 'document', extensions: ['.rtf'], mimeTypes: ['application/rtf', 'text/rtf'] },
  { format: 'xlsx', kind: 'document', extensions: ['.xlsx'], mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'] },
  { format: 'xls', kind: 'document', extensions: ['.xls'], mimeTypes: ['application/vnd.ms-excel'] },
  { format: 'ods', kind: 'document', extensions: ['.ods'], mimeTypes: ['application/vnd.oasis.opendocument.spreadsheet'] },
  { format: 'csv', kind: 'document', extensions: ['.csv'], mimeTypes: ['text/csv'] },
  { format: 'png', kind: 'image', extensions: ['.png'], mimeTypes: ['image/png'] },
  { format: 'jpeg', kind: 'image', extensions: ['.jpg', '.jpeg'], mimeTypes: ['image/jpeg'] },
];

export const unsupportedFileType = (filename: string, why: string) =>
  new WebwatchError(
    `${JSON.stringify(filename.slice(0, 200))}: ${why} (parse reads ${PARSE_FORMATS.filter((format) => format.kind === 'document')
      .flatMap((format) => format.extensions)
      .join(' ')}, and images ${PARSE_FORMATS.filter((format) => format.kind === 'image')
      .flatMap((format) => format.extensions)
      .join(' ')} by OCR)`,
    {
      status: 415,
      code: 'UNSUPPORTED_FILE_TYPE',
    },
  );

/**
 * The format of an upload, by its name's extension, else by the type its part declared; the
 * reader then goes by the bytes (a `.docx` that is a PDF is read as the PDF it is).
 */
export function parseFormatOf(filename: string, declaredType: string | undefined): ParseFormat | undefined {
  const name = filename.toLowerCase();
  const byName = PARSE_FORMATS.find((format) => format.extensions.some((extension) => name.endsWith(extension)));
  if (byName) return byName;
  const type = (declaredType ?? '').split(';')[0]!.trim().toLowerCase();
  return PARSE_FORMATS.find((format) => format.mimeTypes.includes(type));
}

/** What of a scrape's options parse does not take: the options of fetching, and the formats of a browser or a history. */
export function parseOptionProblems(options: Record<string, unknown>): Problem[] {
  const excluded = PARSE_EXCLUDED_OPTIONS.filter((name) => name in options).map((name) => ({
    path: [name],
    message: 'is an option of fetching a page, not of parse',
  }));
  const formats = Array.isArray(options.formats) ? (options.formats as unknown[]) : [];
  const excludedFormats = formats
    .map((entry, index) => ({ entry: typeof entry === 'string' ? entry : (entry as { type?: unknown } | null)?.type, index }))
    .filter(({ entry }) => (PARSE_EXCLUDED_FORMATS as readonly unknown[]).includes(entry))
    .map(({ entry, index }) => ({ path: ['formats', index], message: `${String(entry)} is not a format of parse` }));
  return [...excluded, ...excludedFormats];
}
