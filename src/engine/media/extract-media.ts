/**
 * The `video` and `audio` formats: the best video of a media URL (a file, an HLS or DASH
 * manifest), kept as it is encoded (remuxed, not re-encoded), and its audio as MP3. ffprobe reads
 * what a URL holds and ffmpeg writes the file, both as child processes within the scrape's
 * deadline, an address-space cap and a size cap (child-tools.ts). They fetch the URL, its
 * manifests and segments themselves, over http(s) only (never a local file a manifest names),
 * through the filtering proxy wherever a URL rule applies (media-scrape.ts); a single file that
 * cannot be streamed is read from a copy downloaded whole (download-media.ts).
 */
import { stat, unlink, writeFile } from 'node:fs/promises';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { runTool, ToolStopped, type MediaTool } from '../tools/child-tools.js';

export type MediaFormat = 'video' | 'audio';

export interface MediaLimits {
  /** Epoch milliseconds: the scrape's deadline. */
  deadline: number;
  /** The largest file written (and, for a file whose size is known, read). */
  maxBytes: number;
  signal?: AbortSignal;
  /** An HTTP proxy every request of the tools goes through (filtering-proxy.ts). */
  proxy?: string;
}

/** A file of media is written in a few seconds' worth of memory: ffmpeg streams. */
const TOOL_MEMORY_BYTES = 1024 * 1024 * 1024;
/** A probe answers in JSON of a few KB; a manifest of hundreds of renditions stays under this. */
const PROBE_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Network reads that stall this long fail (microseconds, as ffmpeg takes them). */
const READ_TIMEOUT_US = String(15_000_000);
/** Remote protocols only: a manifest that names file:///etc/passwd reads nothing. */
const networkOnly = (limits: MediaLimits) =>
  limits.proxy
    ? ['-protocol_whitelist', 'http,https,tcp,tls,crypto,httpproxy', '-http_proxy', limits.proxy]
    : ['-protocol_whitelist', 'http,https,tcp,tls,crypto'];

export const MEDIA_NOT_FOUND = 'SCRAPE_MEDIA_NOT_FOUND';
export const MEDIA_TOO_LARGE = 'SCRAPE_MEDIA_TOO_LARGE';
export const MEDIA_FAILED = 'SCRAPE_MEDIA_FAILED';

export interface ProbedStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  bit_rate?: string;
  tags?: Record<string, string>;
}

export interface Probe {
  streams: ProbedStream[];
  format?: { format_name?: string; size?: string; duration?: string };
}

const bitrate = (stream: ProbedStream) => Number(stream.bit_rate ?? stream.tags?.variant_bitrate ?? 0) || 0;

/** The best video stream (most pixels, then bitrate) and the best audio one (bitrate), by index. */
export function bestStreams(probe: Probe): { video?: ProbedStream; audio?: ProbedStream } {
  const videos = probe.streams.filter(
    (stream) => stream.codec_type === 'video' && (stream.width ?? 0) > 0 && !/^(mjpeg|png|bmp|gif)$/.test(stream.codec_name ?? ''),
  );
  const audios = probe.streams.filter((stream) => stream.codec_type === 'audio');
  const video = videos.sort((a, b) => (b.width ?? 0) * (b.height ?? 0) - (a.width ?? 0) * (a.height ?? 0) || bitrate(b) - bitrate(a))[0];
  const audio = audios.sort((a, b) => bitrate(b) - bitrate(a))[0];
  return { ...(video && { video }), ...(audio && { audio }) };
}

async function run(tool: MediaTool, args: string[], limits: MediaLimits, maxOutputBytes: number) {
  try {
    return await runTool(tool, args, {
      deadline: limits.deadline,
      memoryBytes: TOOL_MEMORY_BYTES,
      maxOutputBytes,
      ...(limits.signal && { signal: limits.signal }),
    });
  } catch (error) {
    if (!(error instanceof ToolStopped)) throw error;
    if (error.reason === 'deadline')
      throw new WebwatchError('Request Timeout', { status: 408, details: { reason: `${tool} did not finish before the scrape's timeout` } });
    throw error;
  }
}

/** What a URL holds, or undefined when ffprobe finds no audio or video in it (a web page, say). */
export async function probeMedia(url: string, limits: MediaLimits): Promise<Probe | undefined> {
  const { code, stdout } = await run(
    'ffprobe',
    ['-v', 'error', ...networkOnly(limits), '-rw_timeout', READ_TIMEOUT_US, '-print_format', 'json', '-show_streams', '-show_format', url],
    limits,
    PROBE_OUTPUT_BYTES,
  );
  if (code !== 0) return undefined;
  let probe: Probe;
  try {
    probe = JSON.parse(stdout.toString('utf8')) as Probe;
  } catch {
    return undefined;
  }
  const { video, audio } = bestStreams(probe);
  return video || audio ? probe : undefined;
}

/** The container a video is kept in: WebM for the codecs of the web's free formats, else MP4. */
export function videoContainer(video: ProbedStream, audio: ProbedStream | undefined): 'mp4' | 'webm' {
  const free = /^(vp8|vp9|av1)$/.test(video.codec_name ?? '') && (!audio || /^(opus|vorbis)$/.test(audio.codec_name ?? ''));
  return free ? 'webm' : 'mp4';
}

/** A downloaded copy of the media (download-media.ts), read with the demuxer its probe named. */
export interface LocalCopy {
  path: string;
  demuxer: string;
}

/**
 * The demuxer of a single file whose index may come after its media (MP4 and QuickTime's `moov`,
 * Matroska's cues), which ffmpeg reaches by seeking: such a file can be downloaded whole when a
 * server will not seek. Never a playlist (HLS, DASH): its segments are fetched by the tools, and
 * a copy on disk could name local files.
 */
export function seekingDemuxer(probe: Probe): 'mov' | 'matroska' | undefined {
  const first = probe.format?.format_name?.split(',')[0];
  return first === 'mov' || first === 'matroska' ? first : undefined;
}

/**
 * Writes the `format` of the media at `url` to `path` (its extension chosen by the caller from
 * `outputExtension`), read from `local` when given, else streamed from `url`. Throws
 * SCRAPE_MEDIA_NOT_FOUND when the media has no such stream, SCRAPE_MEDIA_TOO_LARGE past
 * `maxBytes` (nothing is kept).
 */
export async function writeMedia(
  url: string,
  probe: Probe,
  format: MediaFormat,
  path: string,
  limits: MediaLimits,
  local?: LocalCopy,
): Promise<{ bytes: number; width?: number; height?: number; problems: string[] }> {
  const { video, audio } = bestStreams(probe);
  const known = Number(probe.format?.size ?? 0);
  if (known > limits.maxBytes) throw mediaTooLarge(url, known, limits.maxBytes);
  if (format === 'video' && !video)
    throw new WebwatchError(`no video stream in ${url}`, { status: 422, code: MEDIA_NOT_FOUND, details: { url, reason: 'it holds audio only' } });
  if (format === 'audio' && !audio)
    throw new WebwatchError(`no audio stream in ${url}`, { status: 422, code: MEDIA_NOT_FOUND, details: { url, reason: 'its video has no sound' } });
  const streams =
    format === 'video'
      ? [
          '-map',
          `0:${video!.index}`,
          ...(audio ? ['-map', `0:${audio.index}`] : []),
          '-c',
          'copy',
          ...(videoContainer(video!, audio) === 'mp4' ? ['-movflags', '+faststart'] : []),
        ]
      : ['-map', `0:${audio!.index}`, '-vn', ...(audio!.codec_name === 'mp3' ? ['-c:a', 'copy'] : ['-c:a', 'libmp3lame', '-q:a', '2'])];
  // -fs stops writing at the cap (one byte over it tells a cut file from one that fit).
  // Warnings too: a segment that could not be read is a warning, and the file is kept without it.
  // A local copy is read as the file its probe found (-f), never as whatever its bytes say now.
  const input = local
    ? ['-protocol_whitelist', 'file', '-f', local.demuxer, '-i', `file:${local.path}`]
    : [...networkOnly(limits), '-rw_timeout', READ_TIMEOUT_US, '-i', url];
  const args = ['-nostdin', '-v', 'warning', '-y', ...input, ...streams, '-fs', String(limits.maxBytes + 1), path];
  let result;
  try {
    // Made first, readable by this user alone as everything under the home is: ffmpeg's -y
    // truncates the file and keeps its mode, where a file it created would take the umask's 0644.
    await writeFile(path, '', { mode: 0o600 });
    result = await run('ffmpeg', args, limits, 64 * 1024);
  } catch (error) {
    await unlink(path).catch(() => undefined);
    throw error;
  }
  const bytes = await stat(path).then(
    (file) => file.size,
    () => 0,
  );
  if (bytes > limits.maxBytes) {
    await unlink(path).catch(() => undefined);
    throw mediaTooLarge(url, undefined, limits.maxBytes);
  }
  // ffmpeg can end with 0 and a file of headers only (a server that ends the stream early, or
  // refuses the range requests an MP4 with its index at the end needs): the file is read back,
  // and a single file that failed so is then downloaded whole (media-scrape.ts).
  const written = result.code === 0 && bytes > 0 ? await readBack(path, format, limits) : false;
  if (!written) {
    await unlink(path).catch(() => undefined);
    const said = result.stderr
      .trim()
      .split('\n')
      .filter((line) => !/Last message repeated/.test(line));
    throw new WebwatchError(`ffmpeg could not write the ${format} of ${url}`, {
      status: 502,
      code: MEDIA_FAILED,
      details: { url, reason: said.slice(-2).join('; ') || `exit code ${result.code}` },
    });
  }
  // What ffmpeg said while it still wrote a whole file: segments it could not read, say.
  const problems = result.stderr
    .trim()
    .split('\n')
    .map((line) => line.replace(/^\[[^\]]*\]\s*/, '').trim())
    .filter((line) => line !== '' && !/Last message repeated/.test(line));
  return { bytes, problems: [...new Set(problems)].slice(0, 3), ...(format === 'video' && video && { width: video.width, height: video.height }) };
}

/** Whether the file written holds the stream asked for, with some duration. */
async function readBack(path: string, format: MediaFormat, limits: MediaLimits): Promise<boolean> {
  const { code, stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-protocol_whitelist', 'file', '-print_format', 'json', '-show_streams', '-show_format', path],
    limits,
    PROBE_OUTPUT_BYTES,
  );
  if (code !== 0) return false;
  try {
    const probe = JSON.parse(stdout.toString('utf8')) as Probe;
    const streams = bestStreams(probe);
    return Number(probe.format?.duration ?? 0) > 0 && (format === 'video' ? streams.video !== undefined : streams.audio !== undefined);
  } catch {
    return false;
  }
}

export const mediaTooLarge = (url: string, size: number | undefined, max: number) =>
  new WebwatchError(`the media of ${url} is larger than webwatch keeps (${max} bytes)`, {
    status: 413,
    code: MEDIA_TOO_LARGE,
    details: { url, ...(size !== undefined && { size }), maxBytes: max },
  });
