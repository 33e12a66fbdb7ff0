/** webwatch_parse: a file of this machine read as markdown (the stdio server only: the user's own files). */
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../errors/webwatch-error.js';
import { PARSE_MAX_BYTES, parseFormatOf, parseOptionProblems, unsupportedFileType } from '../../spec/parse.js';
import { textResult } from '../results.js';
import { documentText, guarded, invalid, type ToolKit } from '../tool-kit.js';

export function registerParseTool(kit: ToolKit): void {
  const { server, backend, pages, scrapeShape, scrapeOptionsOf } = kit;
  server.registerTool(
    'webwatch_parse',
    {
      title: 'Read a local file',
      description:
        'Read a file of this machine (PDF, DOCX, DOC, ODT, RTF, XLSX, XLS, ODS, CSV or HTML) as markdown, or other formats, as a scrape of it would: headings, lists, tables, links; a workbook as a section per sheet. Give an absolute path. Use webwatch_scrape for a URL.',
      inputSchema: z.object({ filePath: z.string().min(1), ...scrapeShape }).strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ filePath, ...input }, extra) => {
      if (!isAbsolute(filePath)) throw new UsageError(`filePath must be absolute: ${filePath}`);
      const excluded = parseOptionProblems(input);
      if (excluded.length > 0) throw invalid('parse options', excluded);
      const options = scrapeOptionsOf(input);
      const filename = basename(filePath);
      const format = parseFormatOf(filename, undefined);
      if (format?.kind !== 'document') throw unsupportedFileType(filename, 'its extension is none that parse reads');
      const body = await readFile(filePath).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${filePath}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
      });
      if (body.length > PARSE_MAX_BYTES) throw new UsageError(`${filePath} is over the ${PARSE_MAX_BYTES / 1024 / 1024} MB limit of parse`);
      const document = await backend.parse.parse({ body, filename, contentType: format.mimeTypes[0]! }, options, extra.signal);
      return textResult(pages.page(documentText(document as unknown as Record<string, unknown>)));
    }),
  );
}
