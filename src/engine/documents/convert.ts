/**
 * An office document to HTML, for the markdown pipeline of HTML pages: mammoth (DOCX, on a
 * thread of its own: docx.ts), webwatch's own streaming reader (XLSX: xlsx.ts), pandoc (RTF,
 * CSV) or LibreOffice's headless converter (DOC, ODT, XLS, ODS), the last two from Debian, each in a directory of its own inside
 * bubblewrap (no network, no file of the machine's but the system's), under a deadline and a
 * memory cap, never with webwatch's environment. Which converter reads which format was
 * measured in bench/README.md ("Office documents").
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { Slots, SlotsTimedOut } from '../../lib/slots.js';
import { runTool, ToolStopped } from '../tools/child-tools.js';
import { type DocumentKind, isWorkbook } from './detect.js';
import { type Workbook, workbookHtml } from './sheets.js';
import { checkZip } from './zip-guard.js';

export interface ConvertLimits {
  /** Epoch milliseconds. */
  deadline: number;
  /** Address-space cap of the converter. LibreOffice maps a great deal it never touches. */
  memoryBytes?: number;
  /** The HTML a document may become. */
  maxHtmlBytes?: number;
  signal?: AbortSignal;
}

const MEMORY_DEFAULT = 3 * 1024 * 1024 * 1024;
const HTML_DEFAULT = 64 * 1024 * 1024;

const ZIPPED: ReadonlySet<DocumentKind> = new Set(['docx', 'xlsx', 'odt', 'ods']);

/** Which converter reads a format, and how it is asked. */
const CONVERTER: Record<DocumentKind, 'pandoc' | 'soffice' | 'mammoth'> = {
  rtf: 'pandoc',
  csv: 'pandoc',
  docx: 'mammoth',
  doc: 'soffice',
  odt: 'soffice',
  xlsx: 'soffice',
  xls: 'soffice',
  ods: 'soffice',
};

const PANDOC_TEMPLATE =
  '<head>$if(title)$<title>$title$</title>$endif$$for(author)$<meta name="author" content="$author$">$endfor$$if(date)$<meta name="dcterms.created" content="$date$">$endif$</head>\n$body$\n';

/**
 * Converters running at once in this process: each maps up to its memory cap and takes a core,
 * so a crawl of a hundred documents converts a core's worth at a time instead of a hundred.
 */
export const CONVERTERS = new Slots(Math.max(1, availableParallelism()));

const unreadable = (kind: DocumentKind, why: string) =>
  new WebwatchError(`the ${kind.toUpperCase()} file could not be read: ${why}`, { status: 422, code: 'DOCUMENT_UNREADABLE' });

/**
 * The document as HTML, and a workbook's sheets as sections of tables: an XLSX read as it
 * streams (xlsx.ts), XLS and ODS through LibreOffice's HTML (sheets.ts).
 */
export async function readDocument(body: Uint8Array, kind: DocumentKind, limits: ConvertLimits): Promise<{ html: string; workbook?: Workbook }> {
  if (kind === 'xlsx') {
    await checkZip(body);
    const { readXlsx } = await import('./xlsx.js');
    const workbook = await readXlsx(body, { deadline: limits.deadline, ...(limits.signal && { signal: limits.signal }) });
    return { html: workbook.html, workbook };
  }
  const html = await documentToHtml(body, kind, limits);
  return isWorkbook(kind) ? { html, workbook: workbookHtml(html) } : { html };
}

/** The document as HTML, or a clear error: too large once inflated, damaged, or past its deadline. */
export async function documentToHtml(body: Uint8Array, kind: DocumentKind, limits: ConvertLimits): Promise<string> {
  if (ZIPPED.has(kind)) await checkZip(body);
  const release = await CONVERTERS.take(limits.deadline, limits.signal).catch((error: unknown) => {
    throw error instanceof SlotsTimedOut ? unreadable(kind, 'no converter came free in the time left') : error;
  });
  try {
    return await convertInSandbox(body, kind, limits);
  } finally {
    release();
  }
}

async function convertInSandbox(body: Uint8Array, kind: DocumentKind, limits: ConvertLimits): Promise<string> {
  if (CONVERTER[kind] === 'mammoth') {
    const { docxToHtml } = await import('./docx.js');
    return docxToHtml(body, { deadline: limits.deadline, ...(limits.signal && { signal: limits.signal }) });
  }
  const dir = await mkdtemp(join(tmpdir(), 'webwatch-document-'));
  try {
    const input = join(dir, `document.${kind}`);
    await writeFile(input, body, { mode: 0o600 });
    const toolLimits = {
      deadline: limits.deadline,
      memoryBytes: limits.memoryBytes ?? MEMORY_DEFAULT,
      maxOutputBytes: limits.maxHtmlBytes ?? HTML_DEFAULT,
      sandbox: { writableDir: dir },
      ...(limits.signal && { signal: limits.signal }),
    };
    try {
      if (CONVERTER[kind] === 'pandoc') {
        // The template gives the RTF's info group (title, author) a head, and nothing else of pandoc's page.
        const template = join(dir, 'template.html');
        await writeFile(template, PANDOC_TEMPLATE, { mode: 0o600 });
        const from = kind === 'csv' ? 'csv' : 'rtf';
        const result = await runTool('pandoc', ['--from', from, '--to', 'html', '--wrap=none', '--template', template, input], toolLimits);
        if (result.code !== 0) throw unreadable(kind, firstLine(result.stderr) || `pandoc exited with ${result.code ?? 'a signal'}`);
        return result.stdout.toString('utf8');
      }
      // LibreOffice answers 0 even when it wrote nothing (a document it refused): the file tells.
      const out = join(dir, 'out');
      const filter = kind === 'xlsx' || kind === 'xls' || kind === 'ods' ? 'html:HTML (StarCalc)' : 'html:HTML (StarWriter)';
      const result = await runTool(
        'soffice',
        ['--headless', '--norestore', '--nolockcheck', `-env:UserInstallation=file://${dir}/profile`, '--convert-to', filter, '--outdir', out, input],
        toolLimits,
      );
      const html = join(out, 'document.html');
      const size = await stat(html).then(
        (info) => info.size,
        () => undefined,
      );
      if (size === undefined) throw unreadable(kind, firstLine(result.stderr) || 'LibreOffice wrote nothing (a damaged or refused file)');
      if (size > toolLimits.maxOutputBytes) throw unreadable(kind, `it becomes more than ${toolLimits.maxOutputBytes / 1024 / 1024} MiB of HTML`);
      return await readFile(html, 'utf8');
    } catch (error) {
      if (error instanceof ToolStopped) {
        if (error.reason === 'aborted') throw error;
        throw unreadable(kind, error.reason === 'deadline' ? 'it took longer than the time left' : 'it became too much HTML');
      }
      throw error;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const firstLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line && !/javaldx|^Warning: failed to launch/.test(line)) ?? '';
