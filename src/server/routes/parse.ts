/**
 * POST /v2/parse: one uploaded file (multipart: `file`, and `options` as JSON) read as a scrape
 * of it would read it, one of the key's concurrent jobs; GET /v2/parse/formats: what it accepts.
 * The file is held in memory within the 50 MB limit, never written but to the converter's own
 * directory, and nothing of it is kept once answered.
 */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { PARSE_FORMATS, PARSE_MAX_BYTES, parseFormatOf, parseOptionProblems, unsupportedFileType } from '../../spec/parse.js';
import { invalid, scrapeOptionsWithRetention } from '../http.js';
import type { RouteDeps } from './deps.js';
import { imageTextAvailable } from '../../engine/documents/image-text.js';

const OPTIONS_MAX_BYTES = 1024 * 1024;

const badRequest = (path: string, message: string) => new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path, message }] });

interface Upload {
  file?: { body: Buffer; filename: string; contentType: string };
  options: Record<string, unknown>;
}

/** The parts of the request: at most one file and one options field, within their limits. */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) throw badRequest('', 'parse takes multipart/form-data: a "file" part, and "options" as JSON');
  const upload: Upload = { options: {} };
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw badRequest(part.fieldname, 'the only file part is "file"');
        upload.file = { body: await part.toBuffer(), filename: part.filename || 'upload', contentType: part.mimetype };
      } else if (part.fieldname === 'options') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(part.value));
        } catch {
          throw badRequest('options', 'the options part is not JSON');
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('options', 'the options part must be a JSON object');
        upload.options = parsed as Record<string, unknown>;
      }
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
      throw new WebwatchError(ERROR_MESSAGES.payloadTooLarge, { status: 413, code: 'FILE_TOO_LARGE', details: { limitBytes: PARSE_MAX_BYTES } });
    throw error;
  }
  return upload;
}

export const parseRoutes: FastifyPluginAsync<RouteDeps> = async (app, { servicesOf }) => {
  const { limited } = app.limits;
  await app.register(multipart, {
    limits: { fileSize: PARSE_MAX_BYTES, files: 1, fields: 4, fieldSize: OPTIONS_MAX_BYTES, parts: 6 },
    throwFileSizeLimit: true,
  });

  app.get('/v2/parse/formats', async (_request, reply) => {
    // Images are read by OCR where tesseract is installed.
    const images = imageTextAvailable();
    const formats = PARSE_FORMATS.map((format) => ({ ...format, available: format.kind === 'document' || images }));
    return reply.header('cache-control', 'private, max-age=3600').send({ success: true, data: { formats } });
  });

  app.post('/v2/parse', async (request, reply) => {
    const { file, options } = await readUpload(request);
    if (!file) throw badRequest('file', 'a "file" part is required');
    if (file.body.length === 0) throw badRequest('file', 'the file is empty');
    const format = parseFormatOf(file.filename, file.contentType);
    if (!format) throw unsupportedFileType(file.filename, 'neither its name nor its type is one parse reads');
    if (format.kind === 'image' && !imageTextAvailable()) {
      throw unsupportedFileType(file.filename, 'images are read by OCR, and this server has no tesseract-ocr');
    }
    const { zeroDataRetention, ...rest } = options;
    const excluded = parseOptionProblems(rest);
    if (excluded.length > 0) throw invalid(excluded);
    const checked = scrapeOptionsWithRetention(rest, zeroDataRetention);
    return limited(request, reply, async () => {
      const document = await servicesOf(request).parse.parse({ ...file, contentType: format.mimeTypes[0]! }, checked.options, undefined, {
        zeroDataRetention: checked.zeroDataRetention,
      });
      return reply.send({ success: true, data: document });
    });
  });
};
