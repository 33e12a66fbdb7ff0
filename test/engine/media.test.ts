/**
 * The `video` and `audio` formats on real media, made at test time with ffmpeg (a test pattern
 * and a tone, in two resolutions, an HLS ladder and a DASH manifest) and served on 127.0.0.1 as
 * real servers serve them (range requests), or as a poor one does (no ranges). Every result is
 * read back with ffprobe: codec, resolution, duration, never the file's size alone.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { mediaScrape } from '../../src/engine/media/media-scrape.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch } from '../helpers/webwatch-server.js';

const HAVE_FFMPEG = spawnSync('ffmpeg', ['-version']).status === 0 && spawnSync('ffprobe', ['-version']).status === 0;
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);

interface Probed {
  streams: { codec_name: string; codec_type: string; width?: number; height?: number }[];
  format: { duration: string };
}
const probe = (path: string): Probed =>
  JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', path], { encoding: 'utf8' })) as Probed;
const pathOf = (fileUrl: string | undefined) => fileURLToPath(fileUrl!);

const TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  mpd: 'application/dash+xml',
  m4s: 'video/iso.segment',
  html: 'text/html; charset=utf-8',
};

describe('the video and audio formats', { skip: !HAVE_FFMPEG && 'ffmpeg and ffprobe are not installed (apt-get install ffmpeg)' }, () => {
  let media: string;
  let site: TestServer;
  /** The downloads /held/ holds, each waiting to be let go on or cut. */
  const held: ((go: 'on' | 'cut') => void)[] = [];
  /** Serves files of `media`, with range requests unless the path starts with /norange/. */
  before(async () => {
    media = tempDir();
    const source = (size: string, name: string, extra: string[] = []) =>
      ffmpeg(
        '-f',
        'lavfi',
        '-i',
        `testsrc=size=${size}:rate=25`,
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:sample_rate=44100',
        '-t',
        '3',
        '-c:v',
        'libx264',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-shortest',
        ...extra,
        join(media, name),
      );
    source('640x360', 'small.mp4', ['-movflags', '+faststart']);
    source('1280x720', 'big.mp4');
    mkdirSync(join(media, 'hls'));
    ffmpeg('-i', join(media, 'small.mp4'), '-c', 'copy', '-f', 'hls', '-hls_time', '1', '-hls_playlist_type', 'vod', join(media, 'hls', 'low.m3u8'));
    ffmpeg('-i', join(media, 'big.mp4'), '-c', 'copy', '-f', 'hls', '-hls_time', '1', '-hls_playlist_type', 'vod', join(media, 'hls', 'high.m3u8'));
    writeFileSync(
      join(media, 'hls', 'master.m3u8'),
      '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=640x360\nlow.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=1280x720\nhigh.m3u8\n',
    );
    mkdirSync(join(media, 'dash'));
    ffmpeg('-i', join(media, 'big.mp4'), '-c', 'copy', '-f', 'dash', join(media, 'dash', 'manifest.mpd'));
    const page = (head: string, body: string) =>
      `<html><head><title>Clip</title>${head}</head><body><main><h1>A clip</h1><p>Watch the clip.</p>${body}</main></body></html>`;
    writeFileSync(
      join(media, 'sources.html'),
      page('', '<video controls><source src="/small.mp4" type="video/mp4"><source src="/big.mp4" type="video/mp4"></video>'),
    );
    writeFileSync(join(media, 'og.html'), page('<meta property="og:video" content="/small.mp4">', ''));
    writeFileSync(
      join(media, 'ld.html'),
      page(
        `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@graph': [{ '@type': 'VideoObject', name: 'Clip', contentUrl: '/big.mp4' }] })}</script>`,
        '',
      ),
    );
    writeFileSync(join(media, 'plain.html'), page('', '<p>No video here.</p>'));
    // A player drawn by script after the page loads: its video is in the page the browser renders.
    writeFileSync(
      join(media, 'drawn.html'),
      '<!doctype html><html><head><title>Player</title></head><body><div id="root"></div><script>setTimeout(function () { document.getElementById("root").innerHTML = "<h1>The clip</h1><p>The clip of the day, drawn by script.</p><video src=\\"/big.mp4\\" controls></video>"; }, 300);</script></body></html>',
    );
    // A ladder whose one rendition lost a segment, and a live playlist that never ends.
    mkdirSync(join(media, 'gap'));
    // A key frame every second, so that each second is a segment of its own.
    ffmpeg(
      '-i',
      join(media, 'big.mp4'),
      '-c:v',
      'libx264',
      '-g',
      '25',
      '-keyint_min',
      '25',
      '-sc_threshold',
      '0',
      '-c:a',
      'copy',
      '-f',
      'hls',
      '-hls_time',
      '1',
      '-hls_playlist_type',
      'vod',
      join(media, 'gap', 'only.m3u8'),
    );
    const { unlinkSync } = await import('node:fs');
    unlinkSync(join(media, 'gap', 'only1.ts'));
    site = await startServer(
      {
        '/live.m3u8': (_request, response) => {
          // Each reload a new media sequence and no end: a client that waits for the end waits forever.
          const sequence = Math.floor(Date.now() / 1000);
          response
            .writeHead(200, { 'content-type': TYPES.m3u8! })
            .end(`#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:${sequence}\n#EXTINF:1.0,\n/hls/low0.ts\n#EXTINF:1.0,\n/hls/low0.ts\n`);
        },
      },
      async (request, response) => {
        let path = new URL(request.url!, 'http://x').pathname;
        // /slow/...: each file after 400 ms, as a congested CDN gives them.
        if (path.startsWith('/slow/')) {
          await new Promise((resolve) => setTimeout(resolve, 400));
          path = path.slice('/slow'.length);
        }
        // /norange/, /nolength/ and /held/: a server that ignores Range and answers 200 with the
        // whole file; /nolength/ without a Content-Length; /held/ holds a request without Range (a
        // whole download, never the tools' first request, which asks for bytes=0-) halfway
        // through, until the test lets it go on or cuts it.
        const poor = /^\/(norange|nolength|held)\//.exec(path)?.[1];
        const ranged = !poor;
        const file = join(media, poor ? path.slice(poor.length + 1) : path);
        let body: Buffer;
        try {
          body = readFileSync(file);
        } catch {
          return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        }
        const type = TYPES[file.split('.').pop()!] ?? 'application/octet-stream';
        if (poor === 'nolength') return void response.writeHead(200, { 'content-type': type }).end(body);
        if (poor === 'held' && request.headers.range === undefined) {
          response.writeHead(200, { 'content-type': type, 'content-length': body.length });
          response.write(body.subarray(0, body.length >> 1));
          const go = await new Promise<'on' | 'cut'>((resolve) => held.push(resolve));
          return void (go === 'on' ? response.end(body.subarray(body.length >> 1)) : response.destroy());
        }
        const range = ranged ? /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '') : null;
        if (!range)
          return void response.writeHead(200, { 'content-type': type, 'content-length': body.length, ...(ranged && { 'accept-ranges': 'bytes' }) }).end(body);
        const start = Number(range[1]);
        const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
        response
          .writeHead(206, {
            'content-type': type,
            'content-range': `bytes ${start}-${end}/${body.length}`,
            'content-length': end - start + 1,
            'accept-ranges': 'bytes',
          })
          .end(body.subarray(start, end + 1));
      },
    );
  });
  after(() => site.close());

  const engine = (path: string, formats: ('video' | 'audio' | 'markdown')[], maxBytes?: number) => {
    const artifactsDir = tempDir();
    return mediaScrape(
      `${site.origin}${path}`,
      { formats },
      formats.filter((f): f is 'video' | 'audio' => f !== 'markdown'),
      {
        artifactsDir,
        ...(maxBytes !== undefined && { maxBytes }),
        scrapePage: async () => ({
          rawHtml: readFileSync(join(media, path.slice(1)), 'utf8'),
          markdown: '# A clip',
          metadata: {
            url: `${site.origin}${path}`,
            sourceURL: `${site.origin}${path}`,
            statusCode: 200,
            scrapeId: '01a22400-0000-7000-8000-000000000000',
            creditsUsed: 1,
          },
        }),
      },
    );
  };

  it('keeps the video of a media file as it is encoded, and its sound as MP3', async () => {
    const document = await engine('/big.mp4', ['video', 'audio']);
    const video = probe(pathOf(document.video));
    assert.deepEqual(
      video.streams.map((s) => [s.codec_type, s.codec_name, s.width ?? null, s.height ?? null]),
      [
        ['video', 'h264', 1280, 720],
        ['audio', 'aac', null, null],
      ],
    );
    assert.ok(Math.abs(Number(video.format.duration) - 3) < 0.2, video.format.duration);
    const audio = probe(pathOf(document.audio));
    assert.deepEqual(
      audio.streams.map((s) => [s.codec_type, s.codec_name]),
      [['audio', 'mp3']],
    );
    assert.ok(Math.abs(Number(audio.format.duration) - 3) < 0.3, audio.format.duration);
    assert.equal(document.metadata.contentType, 'video/mp4');
    assert.equal(document.metadata.creditsUsed, 1 + 4 + 4, 'a page, and 4 for each media format');
    assert.equal(document.markdown, undefined);
    // Readable by this user alone, as everything under the home is (ffmpeg alone would write 0644).
    for (const file of [document.video, document.audio]) assert.equal(statSync(pathOf(file)).mode & 0o777, 0o600, file);
  });

  it('takes the best rendition of an HLS ladder, and the video of a DASH manifest', async () => {
    const hls = probe(pathOf((await engine('/hls/master.m3u8', ['video'])).video));
    assert.deepEqual(
      hls.streams.filter((s) => s.codec_type === 'video').map((s) => [s.width, s.height]),
      [[1280, 720]],
    );
    const dash = await engine('/dash/manifest.mpd', ['video', 'audio']);
    assert.deepEqual(
      probe(pathOf(dash.video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => [s.width, s.height]),
      [[1280, 720]],
    );
    assert.equal(probe(pathOf(dash.audio)).streams[0]!.codec_name, 'mp3');
  });

  it("finds the video a page declares (<source>s, og:video, JSON-LD), the largest of several, beside the page's markdown", async () => {
    const sources = await engine('/sources.html', ['markdown', 'video']);
    assert.equal(sources.markdown, '# A clip');
    assert.deepEqual(
      probe(pathOf(sources.video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [1280],
    );
    assert.match(sources.warning ?? '', /the video of http:\/\/127\.0\.0\.1:\d+\/big\.mp4, the video the page declares/);
    assert.deepEqual(
      probe(pathOf((await engine('/og.html', ['video'])).video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [640],
    );
    assert.deepEqual(
      probe(pathOf((await engine('/ld.html', ['audio'])).audio)).streams.map((s) => s.codec_name),
      ['mp3'],
    );
  });

  it('says what is missing or too large, and keeps no file', async () => {
    await assert.rejects(
      engine('/plain.html', ['video']),
      (error: WebwatchError) =>
        error.code === 'SCRAPE_MEDIA_NOT_FOUND' && error.status === 422 && /declares no video/.test(String((error.details as { reason: string }).reason)),
    );
    await assert.rejects(engine('/big.mp4', ['video'], 10_000), (error: WebwatchError) => error.code === 'SCRAPE_MEDIA_TOO_LARGE' && error.status === 413);
  });

  it('an MP4 with its index at the end, from a server that ignores Range: downloaded whole, privately, then remuxed, for video and audio', async () => {
    // big.mp4 is written without +faststart: its moov atom is after the media. Streaming it,
    // ffmpeg reads to the end for the index, asks for the media at byte 48 and gets byte 0.
    const before = site.requests.length;
    const artifactsDir = tempDir();
    const document = await mediaScrape(`${site.origin}/norange/big.mp4`, { formats: ['video', 'audio'] }, ['video', 'audio'], {
      artifactsDir,
      scrapePage: () => Promise.reject(new Error('not a page')),
    });
    const video = probe(pathOf(document.video));
    assert.deepEqual(
      video.streams.map((s) => [s.codec_type, s.codec_name, s.width ?? null]),
      [
        ['video', 'h264', 1280],
        ['audio', 'aac', null],
      ],
    );
    assert.ok(Math.abs(Number(video.format.duration) - 3) < 0.2, video.format.duration);
    const audio = probe(pathOf(document.audio));
    assert.deepEqual(
      audio.streams.map((s) => [s.codec_type, s.codec_name]),
      [['audio', 'mp3']],
    );
    assert.ok(Math.abs(Number(audio.format.duration) - 3) < 0.3, audio.format.duration);
    assert.equal(document.warning, undefined);
    // One whole download (the request without Range) served both formats; only the two files are left.
    const downloads = site.requests.slice(before).filter((request) => request.path === '/norange/big.mp4' && request.headers.range === undefined);
    assert.equal(downloads.length, 1);
    assert.deepEqual(
      readdir(artifactsDir).map((name) => name.replace(/^[0-9a-f-]{36}/, 'ID')),
      ['ID-100.mp4', 'ID-101.mp3'],
    );
    for (const name of readdir(artifactsDir)) assert.equal(statSync(join(artifactsDir, name)).mode & 0o777, 0o600, name);

    // The same without a Content-Length: the size is learnt as the bytes come.
    const unsized = await mediaScrape(`${site.origin}/nolength/big.mp4`, { formats: ['video'] }, ['video'], {
      artifactsDir: tempDir(),
      scrapePage: () => Promise.reject(new Error('not a page')),
    });
    assert.deepEqual(
      probe(pathOf(unsized.video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [1280],
    );
  });

  it('the download of a server without Range keeps within the cap, is readable by this user alone while it lasts, and is gone after a failure', async () => {
    // Past the cap: the probe cannot know the size (no Content-Length), the download stops at it.
    const capped = tempDir();
    const before = site.requests.length;
    await assert.rejects(
      mediaScrape(`${site.origin}/nolength/big.mp4`, { formats: ['video'] }, ['video'], {
        artifactsDir: capped,
        maxBytes: 20_000,
        scrapePage: () => Promise.reject(new Error('not a page')),
      }),
      (error: WebwatchError) => {
        assert.equal(error.code, 'SCRAPE_MEDIA_TOO_LARGE');
        assert.equal(error.status, 413);
        assert.deepEqual(error.details, { url: `${site.origin}/nolength/big.mp4`, maxBytes: 20_000 });
        return true;
      },
    );
    assert.ok(
      site.requests.slice(before).some((request) => request.path === '/nolength/big.mp4' && request.headers.range === undefined),
      'the download was tried',
    );
    assert.deepEqual(readdir(capped), [], 'nothing is left of the download');

    // A download cut halfway: seen while it lasts (mode 0600), gone after.
    const artifactsDir = tempDir();
    let settled = false;
    const scrape = mediaScrape(`${site.origin}/held/big.mp4`, { formats: ['video'] }, ['video'], {
      artifactsDir,
      scrapePage: () => Promise.reject(new Error('not a page')),
    });
    const failed = assert
      .rejects(scrape, (error: WebwatchError) => error.code === 'SCRAPE_MEDIA_FAILED' && error.status === 502)
      .finally(() => (settled = true));
    let partial: string[] = [];
    while (!settled && (held.length === 0 || partial.length === 0)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      partial = readdir(artifactsDir);
    }
    assert.equal(partial.length, 1, `one file while the download is held: ${partial.join(' ')}`);
    assert.equal(statSync(join(artifactsDir, partial[0]!)).mode & 0o777, 0o600);
    held.shift()!('cut');
    await failed;
    assert.deepEqual(readdir(artifactsDir), [], 'nothing is left of the download');
  });

  it('waits for slow segments, says when a segment is missing, and gives up on a playlist that never ends at the timeout', async () => {
    const slow = await engine('/slow/hls/master.m3u8', ['video']);
    const video = probe(pathOf(slow.video));
    assert.deepEqual(
      video.streams.filter((s) => s.codec_type === 'video').map((s) => s.width),
      [1280],
    );
    assert.ok(Math.abs(Number(video.format.duration) - 3) < 0.2, video.format.duration);
    assert.equal(slow.warning, undefined, 'slow is not broken');

    const gap = await engine('/gap/only.m3u8', ['video']);
    assert.deepEqual(
      probe(pathOf(gap.video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [1280],
      'what could be read is kept',
    );
    assert.match(gap.warning ?? '', /the video may be incomplete: ffmpeg said .*(404|Not Found)/i);

    const started = Date.now();
    await assert.rejects(
      mediaScrape(`${site.origin}/live.m3u8`, { formats: ['video'], timeout: 4000 }, ['video'], {
        artifactsDir: tempDir(),
        scrapePage: () => Promise.reject(new Error('not a page')),
      }),
      (error: WebwatchError) => error.status === 408,
    );
    assert.ok(Date.now() - started < 8000, `stopped at the timeout, not ${Date.now() - started} ms later`);
  });

  it("judges every manifest and segment the tools fetch by the scrape's URL rule", async () => {
    const refusing = (pattern: RegExp) => async (url: URL) => {
      if (pattern.test(url.pathname)) throw new WebwatchError('Forbidden', { status: 403, details: { url: url.href, reason: 'refused by the rule' } });
    };
    const asked = () => site.requests.map((request) => request.path);
    // The ladder's best rendition is refused: its playlist and segments are never asked for, and the next best is kept.
    const before = asked().length;
    const artifactsDir = tempDir();
    const ladder = await mediaScrape(`${site.origin}/hls/master.m3u8`, { formats: ['video'] }, ['video'], {
      artifactsDir,
      checkUrl: refusing(/\/hls\/high/),
      scrapePage: () => Promise.reject(new Error('not a page')),
    });
    assert.deepEqual(
      probe(pathOf(ladder.video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [640],
    );
    const during = asked().slice(before);
    assert.ok(
      during.some((path) => path.startsWith('/hls/low')),
      during.join(' '),
    );
    assert.ok(!during.some((path) => path.startsWith('/hls/high')), `refused URLs reached the server: ${during.join(' ')}`);
    // A refused media URL: the rule's own error, and no file.
    await assert.rejects(
      mediaScrape(`${site.origin}/big.mp4`, { formats: ['video'] }, ['video'], {
        artifactsDir,
        checkUrl: refusing(/big/),
        scrapePage: () => Promise.reject(new Error('the page was not to be read')),
      }),
      (error: WebwatchError) => {
        assert.equal(error.status, 403);
        assert.match(JSON.stringify(error.details), /refused by the rule/);
        return true;
      },
    );
    assert.equal(readdir(artifactsDir).length, 1, "the ladder's file only");

    // A server without Range: the whole download goes through the same proxy and rule as the
    // tools' requests, each request judged before it reaches the site.
    const judged: string[] = [];
    const from = site.requests.length;
    const whole = await mediaScrape(`${site.origin}/norange/big.mp4`, { formats: ['video'] }, ['video'], {
      artifactsDir: tempDir(),
      checkUrl: (url) => void judged.push(url.pathname),
      scrapePage: () => Promise.reject(new Error('not a page')),
    });
    assert.deepEqual(
      probe(pathOf(whole.video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [1280],
    );
    const served = site.requests.slice(from);
    assert.ok(
      served.some((request) => request.headers.range === undefined),
      'downloaded whole',
    );
    assert.deepEqual(
      served.map((request) => request.path),
      judged,
      'every request the site saw was judged by the rule',
    );
  });

  it("over HTTPS from a server that ignores Range: downloaded directly, or through the rule's proxy by CONNECT as the tools are, never past it", async (t) => {
    const dir = tempDir();
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
    } catch {
      return t.skip('no openssl to make a certificate');
    }
    const { createServer } = await import('node:https');
    const body = readFileSync(join(media, 'big.mp4'));
    const ranges: (string | undefined)[] = [];
    let [connections, handshakes] = [0, 0];
    const secure = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (request, response) => {
      ranges.push(request.headers.range);
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length }).end(body);
    });
    secure.on('connection', () => connections++);
    secure.on('secureConnection', () => handshakes++);
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(secure.address() as { port: number }).port}/big.mp4`;
    try {
      const direct = await mediaScrape(url, { formats: ['video'] }, ['video'], {
        artifactsDir: tempDir(),
        scrapePage: () => Promise.reject(new Error('not a page')),
      });
      assert.deepEqual(
        probe(pathOf(direct.video))
          .streams.filter((s) => s.codec_type === 'video')
          .map((s) => s.width),
        [1280],
      );
      assert.ok(ranges.includes(undefined), 'downloaded whole');
      // Under a rule: each connection the site had was a tunnel of the proxy, judged first, and
      // each tunnel carried the requests (a download that connected on its own would leave its
      // tunnel without a handshake).
      const judged: string[] = [];
      const [connectionsBefore, handshakesBefore, rangesBefore] = [connections, handshakes, ranges.length];
      const guarded = await mediaScrape(url, { formats: ['audio'] }, ['audio'], {
        artifactsDir: tempDir(),
        checkUrl: (checked) => void judged.push(checked.href),
        scrapePage: () => Promise.reject(new Error('not a page')),
      });
      assert.equal(probe(pathOf(guarded.audio)).streams[0]!.codec_name, 'mp3');
      assert.ok(ranges.slice(rangesBefore).includes(undefined), 'downloaded whole');
      assert.equal(connections - connectionsBefore, judged.length, `${connections - connectionsBefore} connections, ${judged.length} tunnels judged`);
      assert.equal(handshakes - handshakesBefore, connections - connectionsBefore, 'every tunnel was used');
    } finally {
      secure.closeAllConnections();
      secure.close();
    }
  });

  it('a monitor of a video is same while the media is, and changed, with its hash in the diff, once it changes', async () => {
    const { copyFileSync } = await import('node:fs');
    copyFileSync(join(media, 'big.mp4'), join(media, 'swap.mp4'));
    const env = { WEBWATCH_HOME: tempDir() };
    const definition = join(tempDir(), 'clip.yaml');
    writeFileSync(
      definition,
      `name: Clip\nschedule: {cron: "0 9 * * *"}\ntargets:\n  - type: scrape\n    urls: ["${site.origin}/swap.mp4"]\n    scrapeOptions: {formats: [video]}\n`,
    );
    assert.equal((await run(['monitor', 'apply', '-f', definition], { env })).code, 0);
    const check = async () => {
      const ran = await run(['monitor', 'run', 'Clip', '--json'], { env });
      assert.equal(ran.code, 0, ran.stderr);
      const id = JSON.parse(ran.stdout).id as string;
      return JSON.parse((await run(['monitor', 'check', 'Clip', id, '--json'], { env })).stdout) as {
        summary: Record<string, number>;
        pages: { status: string; diff: { text: string } | null }[];
      };
    };
    assert.equal((await check()).summary.new, 1);
    assert.equal((await check()).summary.same, 1, 'the same media, kept again, is the same');
    copyFileSync(join(media, 'small.mp4'), join(media, 'swap.mp4'));
    const changed = await check();
    assert.equal(changed.summary.changed, 1);
    assert.match(changed.pages[0]!.diff!.text, /^-video: sha256 [0-9a-f]{64}$/m);
    assert.match(changed.pages[0]!.diff!.text, /^\+video: sha256 [0-9a-f]{64}$/m);
  });

  it("through the command line: the document names the file; through serve by a signed link that expires, and within serve's private-address rule", async () => {
    const home = tempDir();
    const served = await serveWebwatch({ home });
    try {
      const key = (await served.keys.create('acme', new Date())).key;
      const answer = await call(served, key, 'POST', '/scrape', { url: `${site.origin}/big.mp4`, formats: ['audio'] });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const link = new URL(answer.body.data.audio as string);
      assert.match(link.pathname, /^\/v2\/media\/[0-9a-f-]{36}-\d+\.mp3$/);
      assert.deepEqual([...link.searchParams.keys()], ['team', 'expires', 'signature']);
      const expires = Number(link.searchParams.get('expires'));
      assert.ok(Math.abs(expires * 1000 - (Date.now() + 24 * 3600_000)) < 60_000, 'it expires with the file, in a day');
      // The owner's link works without a key, as a signed storage URL does.
      const mp3 = await fetch(link);
      assert.equal(mp3.status, 200);
      assert.equal(mp3.headers.get('content-type'), 'audio/mpeg');
      const saved = join(tempDir(), 'got.mp3');
      writeFileSync(saved, Buffer.from(await mp3.arrayBuffer()));
      assert.equal(probe(saved).streams[0]!.codec_name, 'mp3');
      // A changed signature, another team, an expired link: 403, whether the file exists or not.
      const changed = (edit: (url: URL) => void) => {
        const url = new URL(link);
        edit(url);
        return statusOf(url.href);
      };
      assert.equal(
        await changed((url) =>
          url.searchParams.set(
            'signature',
            url.searchParams.get('signature')!.replace(/^./, (c) => (c === '0' ? '1' : '0')),
          ),
        ),
        403,
      );
      assert.equal(await changed((url) => url.searchParams.set('team', 'rival')), 403);
      assert.equal(await changed((url) => url.searchParams.set('expires', String(expires + 3600))), 403);
      assert.equal(
        await changed((url) => {
          url.pathname = url.pathname.replace(/-\d+\.mp3$/, '-999.mp3');
        }),
        403,
        'another file of the same link: 403, not 404',
      );
      const { mediaLinks } = await import('../../src/server/media-links.js');
      const links = mediaLinks({ WEBWATCH_HOME: home });
      const name = link.pathname.split('/').pop()!;
      assert.equal(await statusOf(`${served.origin}/v2/media/${name}?${links.query('acme', name, Date.now() - 1000)}`), 403, 'expired');
      assert.equal(
        await statusOf(
          `${served.origin}/v2/media/${name.replace(/-\d+\./, '-998.')}?${links.query('acme', name.replace(/-\d+\./, '-998.'), Date.now() + 60_000)}`,
        ),
        404,
        'a valid link to a file that is gone',
      );
      // The team's key still reads it at its artifact address too; another team's does not.
      const other = (await served.keys.create('rival', new Date())).key;
      assert.equal(await statusOf(`${served.origin}/v2/artifacts/${name}`, { headers: { authorization: `Bearer ${other}` } }), 404);
      assert.equal(await statusOf(`${served.origin}/v2/artifacts/${name}`, { headers: { authorization: `Bearer ${key}` } }), 200);
    } finally {
      await served.stop();
    }
    const guarded = await serveWebwatch({ allowPrivateTargets: false });
    try {
      const key = (await guarded.keys.create('acme', new Date())).key;
      // serve's private-address rule, through the tools' proxy: 127.0.0.1 is never asked.
      const before = site.requests.length;
      const refused = await call(guarded, key, 'POST', '/scrape', { url: `${site.origin}/big.mp4`, formats: ['video'] });
      assert.equal(refused.status, 403);
      assert.match(JSON.stringify(refused.body.details), /private, loopback and link-local addresses are refused/);
      assert.equal(site.requests.length, before);
    } finally {
      await guarded.stop();
    }
    // The command line last: serve stops at once only while no scrape of this process is converting.
    const cli = await run(['scrape', `${site.origin}/sources.html`, '--format', 'video', '--json'], { env: { WEBWATCH_HOME: tempDir() } });
    assert.equal(cli.code, 0, cli.stderr);
    const file = pathOf(JSON.parse(cli.stdout).data.video);
    assert.ok(statSync(file).size > 1000);
    // Readable by this user alone, as everything under the home is (ffmpeg alone would write 0644).
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // -o writes the file itself where asked, and into a directory beside the page's other formats.
    const out = tempDir();
    const one = await run(['scrape', `${site.origin}/big.mp4`, '--format', 'audio', '-o', join(out, 'tone.mp3')], { env: { WEBWATCH_HOME: tempDir() } });
    assert.equal(one.code, 0, one.stderr);
    assert.equal(probe(join(out, 'tone.mp3')).streams[0]!.codec_name, 'mp3');
    const into = await run(['scrape', `${site.origin}/sources.html`, '--format', 'markdown,video', '-o', `${out}/pages/`], {
      env: { WEBWATCH_HOME: tempDir() },
    });
    assert.equal(into.code, 0, into.stderr);
    assert.deepEqual(readdir(join(out, 'pages')), ['127.0.0.1_sources.html.md', '127.0.0.1_sources.html.mp4']);
    assert.deepEqual(
      probe(join(out, 'pages', '127.0.0.1_sources.html.mp4'))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [1280],
    );
    // Without ffmpeg on PATH: exit 11, as a missing browser, with the package to install.
    const bin = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));
    const missing = spawnSync(process.execPath, [bin, 'scrape', `${site.origin}/big.mp4`, '--format', 'video'], {
      env: { PATH: tempDir(), WEBWATCH_HOME: tempDir() },
      encoding: 'utf8',
    });
    assert.equal(missing.status, 11, missing.stderr);
    assert.match(missing.stderr, /the audio and video formats need ffprobe \(Debian package ffmpeg\), and it was not found on PATH/);
    assert.match(missing.stderr, /apt-get install ffmpeg/);
    // The browser only where the page draws its player by script (the scrape renders such a page).
    const drawn = await run(['scrape', `${site.origin}/drawn.html`, '--format', 'markdown,video', '--json'], { env: { WEBWATCH_HOME: tempDir() } });
    assert.equal(drawn.code, 0, drawn.stderr + drawn.stdout);
    assert.match(JSON.parse(drawn.stdout).data.markdown, /The clip of the day, drawn by script/);
    assert.deepEqual(
      probe(pathOf(JSON.parse(drawn.stdout).data.video))
        .streams.filter((s) => s.codec_type === 'video')
        .map((s) => s.width),
      [1280],
    );
  });
});

it('a download a stopped process left behind is pruned with the artifacts after a day, and nothing else of the directory', async () => {
  const { pruneArtifacts } = await import('../../src/engine/browser/artifacts.js');
  const home = tempDir();
  const dir = join(home, 'artifacts', 'acme');
  mkdirSync(dir, { recursive: true });
  const id = '01a22400-0000-7000-8000-000000000000';
  const names = [`${id}-100.mp4`, `${id}-download.part`, 'notes.txt'];
  for (const name of names) writeFileSync(join(dir, name), 'x');
  const { utimesSync } = await import('node:fs');
  const dayAgo = (Date.now() - 25 * 3600_000) / 1000;
  for (const name of names) utimesSync(join(dir, name), dayAgo, dayAgo);
  // One under way, of a scrape that still runs.
  writeFileSync(join(dir, '01a22400-0000-7000-8000-000000000001-download.part'), 'x');
  assert.equal(await pruneArtifacts({ WEBWATCH_HOME: home }, Date.now()), 2);
  assert.deepEqual(readdir(dir), ['01a22400-0000-7000-8000-000000000001-download.part', 'notes.txt']);
});

/** A response's status, its body read, so that no stream keeps serve from stopping. */
async function statusOf(url: string, init?: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
}

function readdir(dir: string): string[] {
  return spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
}
