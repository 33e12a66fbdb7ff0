/**
 * A scrape that asks for `video` or `audio`: the URL itself when it is media (a file, an HLS or
 * DASH manifest), else the video its page declares (find-media.ts), the one of highest
 * resolution among several. The files are kept with the team's artifacts (pruned as screenshots
 * are) and the document names them by `file://` URL, which serve turns into its own artifact
 * URLs. The page's other formats come from the ordinary scrape.
 */
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { CREDITS, SCRAPE_TIMEOUT_DEFAULT_MS } from '../../spec/limits.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { timeOrderedUuid } from '../../lib/time-ordered-uuid.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import { declaredMedia } from './find-media.js';
import { partialDownloadName } from '../browser/artifacts.js';
import {
  bestStreams,
  MEDIA_FAILED,
  MEDIA_NOT_FOUND,
  probeMedia,
  seekingDemuxer,
  videoContainer,
  writeMedia,
  type LocalCopy,
  type MediaFormat,
  type MediaLimits,
  type Probe,
} from './extract-media.js';

/** The largest file kept for one format: 512 MiB. */
export const MEDIA_MAX_BYTES = 512 * 1024 * 1024;
/** Candidates of a page probed, at most: a page of a hundred players is not probed a hundred times. */
const CANDIDATES_PROBED = 8;

export const mediaFormatsOf = (options: ScrapeOptions): MediaFormat[] =>
  (['video', 'audio'] as const).filter((wanted) => (options.formats ?? []).some((format) => (typeof format === 'string' ? format : format.type) === wanted));

export interface MediaScrapeContext {
  artifactsDir: string;
  signal?: AbortSignal;
  maxBytes?: number;
  /** The scrape's URL rule: every manifest and segment the tools fetch is judged by it. */
  checkUrl?: (url: URL) => void | Promise<void>;
  publicAddressesOnly?: boolean;
  /** The page's HTML (and its document for the other formats), when the URL is not media itself. */
  scrapePage(options: ScrapeOptions): Promise<ScrapeDocument>;
}

/** Why the engine will not run the media tools for this request, or undefined when it will. */
export function mediaRefusal(options: ScrapeOptions): string | undefined {
  if (options.lockdown) return 'lockdown answers from the cache only, and media files are never cached';
  return undefined;
}

export async function mediaScrape(url: string, options: ScrapeOptions, formats: readonly MediaFormat[], context: MediaScrapeContext): Promise<ScrapeDocument> {
  const maxBytes = context.maxBytes ?? MEDIA_MAX_BYTES;
  // Where a URL rule applies, the tools fetch through a proxy that applies it to every request.
  // Its cap: the probe, a read per format, and a file that could not be streamed (ffmpeg's
  // failed read of it, and its download).
  const proxy = context.checkUrl
    ? await (await import('./filtering-proxy.js')).filteringProxy({
        checkUrl: context.checkUrl,
        publicAddressesOnly: context.publicAddressesOnly ?? false,
        maxBytes: maxBytes * (formats.length + 3),
      })
    : undefined;
  try {
    return await scrapeWith(url, options, formats, context, { maxBytes, ...(proxy && { proxy: proxy.url }) });
  } catch (error) {
    // A tool that failed because the rule refused a URL says so, with the rule's own error.
    const refusal = proxy?.refusal();
    throw refusal ?? error;
  } finally {
    await proxy?.close();
  }
}

async function scrapeWith(
  url: string,
  options: ScrapeOptions,
  formats: readonly MediaFormat[],
  context: MediaScrapeContext,
  tools: { maxBytes: number; proxy?: string },
): Promise<ScrapeDocument> {
  const limits = { ...tools, deadline: Date.now() + (options.timeout ?? SCRAPE_TIMEOUT_DEFAULT_MS), ...(context.signal && { signal: context.signal }) };
  const others = (options.formats ?? []).filter((format) => !formats.includes((typeof format === 'string' ? format : format.type) as MediaFormat));
  let source: { url: string; probe: Probe } | undefined;
  let page: ScrapeDocument | undefined;
  const direct = await probeMedia(url, limits);
  if (direct) source = { url, probe: direct };
  else {
    // A web page: its declared video, and the page's own formats beside it.
    page = await context.scrapePage({ ...options, formats: [...others, 'rawHtml'] });
    const candidates = declaredMedia(page.rawHtml ?? '', page.metadata.url ?? url).slice(0, CANDIDATES_PROBED);
    for (const candidate of candidates) {
      const probe = await probeMedia(candidate, limits);
      if (probe && (!source || pixels(probe) > pixels(source.probe))) source = { url: candidate, probe };
    }
    if (!source) {
      throw new WebwatchError(`no video or audio found at ${url}`, {
        status: 422,
        code: MEDIA_NOT_FOUND,
        details: {
          url,
          reason:
            candidates.length === 0
              ? 'it is not a media file or manifest, and its page declares no video (<video>, og:video, a JSON-LD VideoObject); a site that draws its player by script needs a site-specific extractor, which webwatch does not have'
              : `none of the ${candidates.length} videos its page declares could be read`,
        },
      });
    }
  }
  await mkdir(context.artifactsDir, { recursive: true, mode: 0o700 });
  const scrapeId = page?.metadata.scrapeId ?? timeOrderedUuid();
  const files: Partial<Record<MediaFormat, string>> = {};
  const problems: string[] = [];
  let n = 100;
  // The file downloaded whole, once, when it could not be streamed: every format reads it.
  const copy: { local?: LocalCopy } = {};
  try {
    for (const format of formats) {
      const { video, audio } = bestStreams(source.probe);
      const extension = format === 'audio' ? 'mp3' : videoContainer(video ?? audio!, audio);
      const path = join(context.artifactsDir, `${scrapeId}-${n++}.${extension}`);
      const written = await writeStreamedOrDownloaded(source, format, path, limits, copy, join(context.artifactsDir, partialDownloadName(scrapeId)));
      files[format] = pathToFileURL(path).href;
      if (written.problems.length > 0) problems.push(`the ${format} may be incomplete: ffmpeg said ${written.problems.join('; ')}`);
    }
  } finally {
    if (copy.local) await unlink(copy.local.path).catch(() => undefined);
  }
  const base: ScrapeDocument =
    page ??
    ({
      metadata: { sourceURL: url, url, statusCode: 200, contentType: contentTypeOf(source.probe), scrapeId, creditsUsed: 1 },
    } as ScrapeDocument);
  const { rawHtml, ...rest } = base;
  const keptRawHtml = others.some((format) => (typeof format === 'string' ? format : format.type) === 'rawHtml');
  return {
    ...rest,
    ...(keptRawHtml && rawHtml !== undefined && { rawHtml }),
    ...files,
    metadata: { ...base.metadata, creditsUsed: base.metadata.creditsUsed + CREDITS.mediaFormat * formats.length },
    ...((source.url !== url || problems.length > 0) && {
      warning: [base.warning, source.url !== url && `the ${formats.join(' and ')} of ${source.url}, the video the page declares`, ...problems]
        .filter(Boolean)
        .join('; '),
    }),
  } as ScrapeDocument;
}

/**
 * The format written from the stream of `source`; when ffmpeg could not read a single file that
 * way (a server that ignores Range, and an MP4 whose index is at its end), from the whole file
 * downloaded to `downloadPath`, kept in `copy` for the formats after it.
 */
async function writeStreamedOrDownloaded(
  source: { url: string; probe: Probe },
  format: MediaFormat,
  path: string,
  limits: MediaLimits,
  copy: { local?: LocalCopy },
  downloadPath: string,
) {
  if (copy.local) return writeMedia(source.url, source.probe, format, path, limits, copy.local);
  try {
    return await writeMedia(source.url, source.probe, format, path, limits);
  } catch (error) {
    const demuxer = seekingDemuxer(source.probe);
    if (!demuxer || !(error instanceof WebwatchError) || error.code !== MEDIA_FAILED) throw error;
    const { downloadMedia } = await import('./download-media.js');
    copy.local = { path: downloadPath, demuxer };
    await downloadMedia(source.url, downloadPath, limits);
    return writeMedia(source.url, source.probe, format, path, limits, copy.local);
  }
}

const pixels = (probe: Probe) => {
  const { video } = bestStreams(probe);
  return (video?.width ?? 0) * (video?.height ?? 0);
};

const contentTypeOf = (probe: Probe) => {
  const name = probe.format?.format_name ?? '';
  if (name.includes('hls')) return 'application/vnd.apple.mpegurl';
  if (name.includes('dash')) return 'application/dash+xml';
  if (name.includes('mp4')) return 'video/mp4';
  if (name.includes('webm') || name.includes('matroska')) return 'video/webm';
  if (name === 'mp3') return 'audio/mpeg';
  return 'application/octet-stream';
};
