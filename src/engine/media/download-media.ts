/**
 * The whole of a media file, downloaded for the tools to read from disk. ffmpeg reads a remote
 * file as a stream and seeks with range requests; a server that ignores Range answers each seek
 * with the file from its start, and an MP4 whose index (`moov`) is at its end cannot be read that
 * way. The download goes through the tools' own proxy where a URL rule applies (filtering-proxy.ts:
 * every request and redirect judged, connections to public addresses only, bytes counted), stops
 * at the cap, the scrape's deadline and its signal, and is written to a file of this user alone
 * that is removed when anything fails. Node's http and https, as the engine's page fetches: the
 * servers this is for close the connection after the body, which undici 7 can crash on while its
 * reader waits for the disk (an assertion in its socket's end handler, nodejs/undici#5360).
 */
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { connect as tlsConnect } from 'node:tls';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { MAX_REDIRECTS } from '../fetch/fetch-page.js';
import { MEDIA_FAILED, mediaTooLarge, type MediaLimits } from './extract-media.js';

/** A server that sends nothing for this long has stalled, as the tools' own read timeout says. */
const STALL_MS = 15_000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** The bytes as they are stored, never compressed on the way: the cap counts the file. */
const HEADERS: OutgoingHttpHeaders = { 'accept-encoding': 'identity' };

/** Downloads `url` to `path` (created, mode 0600); resolves with its size. */
export async function downloadMedia(url: string, path: string, limits: MediaLimits): Promise<number> {
  const controller = new AbortController();
  let why: 'deadline' | 'stalled' | undefined;
  const stop = (reason: typeof why) => {
    why ??= reason;
    controller.abort();
  };
  const deadline = setTimeout(() => stop('deadline'), Math.max(0, limits.deadline - Date.now()));
  // Restarted by every chunk: a transfer that goes on slowly is not a stalled one.
  const stall = setTimeout(() => stop('stalled'), STALL_MS);
  const onAbort = () => controller.abort();
  if (limits.signal?.aborted) controller.abort();
  else limits.signal?.addEventListener('abort', onAbort, { once: true });
  const proxy = limits.proxy ? new URL(limits.proxy) : undefined;
  let created = false;
  try {
    let target = new URL(url);
    for (let hops = 0; ; hops++) {
      const response = await get(target, proxy, controller.signal);
      stall.refresh();
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
        response.resume();
        if (hops >= MAX_REDIRECTS) throw failed(url, `more than ${MAX_REDIRECTS} redirects`);
        target = new URL(location, target);
        continue;
      }
      if (response.statusCode !== 200) {
        response.resume();
        throw failed(url, `the server answered ${response.statusCode} to the download`);
      }
      const length = Number(response.headers['content-length']);
      if (length > limits.maxBytes) {
        response.destroy();
        throw mediaTooLarge(url, length, limits.maxBytes);
      }
      let bytes = 0;
      const capped = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          stall.refresh();
          bytes += chunk.length;
          done(bytes > limits.maxBytes ? mediaTooLarge(url, undefined, limits.maxBytes) : null, chunk);
        },
      });
      created = true;
      await pipeline(response, capped, createWriteStream(path, { flags: 'wx', mode: 0o600 }), { signal: controller.signal });
      return bytes;
    }
  } catch (error) {
    if (created) await unlink(path).catch(() => undefined);
    if (why === 'deadline')
      throw new WebwatchError('Request Timeout', { status: 408, details: { reason: "the download of the media did not finish before the scrape's timeout" } });
    if (why === 'stalled') throw failed(url, `the download stalled: nothing came for ${STALL_MS / 1000} s`);
    if (limits.signal?.aborted) throw new WebwatchError('the scrape was cancelled', { code: 'SCRAPE_CANCELLED' });
    if (error instanceof WebwatchError) throw error;
    throw failed(url, `the download failed: ${(error as Error).message ?? String(error)}`);
  } finally {
    clearTimeout(deadline);
    clearTimeout(stall);
    limits.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The response to a GET of `target`: directly, or through the tools' proxy (an http:// proxy on
 * 127.0.0.1), in absolute form for http and through a CONNECT tunnel for https. Certificates are
 * not checked, as ffmpeg does not check them (its tls_verify is off by default): the same file is
 * read the same way.
 */
function get(target: URL, proxy: URL | undefined, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const https = target.protocol === 'https:';
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const port = Number(target.port) || (https ? 443 : 80);
    const answered = (response: IncomingMessage) => resolve(response);
    if (!proxy) {
      const sent = (https ? httpsRequest : httpRequest)(
        target,
        { headers: HEADERS, signal, agent: false, ...(https && { rejectUnauthorized: false }) },
        answered,
      );
      return void sent.on('error', reject).end();
    }
    const through = { host: proxy.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.port) || 80, agent: false as const, signal };
    if (!https) {
      const sent = httpRequest({ ...through, path: target.href, headers: { ...HEADERS, host: target.host } }, answered);
      return void sent.on('error', reject).end();
    }
    const authority = `${target.hostname}:${port}`;
    const tunnel = httpRequest({ ...through, method: 'CONNECT', path: authority, headers: { host: authority } });
    tunnel.on('error', reject);
    tunnel.on('connect', (answer: IncomingMessage, socket: Socket) => {
      if (answer.statusCode !== 200) {
        socket.destroy();
        return reject(failed(target.href, `the proxy answered ${answer.statusCode} to the download's CONNECT`));
      }
      // No agent: an agent would open a connection of its own, past the proxy, and leave this one unused.
      const sent = httpsRequest(
        target,
        {
          headers: HEADERS,
          signal,
          createConnection: () => tlsConnect({ socket, rejectUnauthorized: false, ...(isIP(host) === 0 && { servername: host }) }),
        },
        answered,
      );
      sent.on('error', reject).end();
    });
    tunnel.end();
  });
}

const failed = (url: string, reason: string) =>
  new WebwatchError(`ffmpeg could not read ${url}, and it could not be downloaded whole`, { status: 502, code: MEDIA_FAILED, details: { url, reason } });
