#!/usr/bin/env node
/**
 * The video and audio formats on a 60-second 720p source served on 127.0.0.1 (with range
 * requests): wall time and peak memory of `webwatch scrape --format video`, then `--format
 * audio`, against the source's own length (goal: 10 times faster than real time), and the same
 * for a 15-second source, to see that memory does not grow with length. Then MP4s with their
 * index at the end from a server that ignores Range (answers 200 with the whole file), which
 * webwatch downloads whole before remuxing: the 60-second source, a 40-minute one of 52 MB (the
 * 60 s looped) and a 160-minute one of 215 MB (video only), also served with ranges for the
 * comparison.
 *
 * Usage: npm run build && node bench/media.mjs [--runs 3] [--against DIR]
 * --against DIR also times the build of another checkout (its bin/webwatch.js), each run of the
 * two in turn; a run that fails is recorded with its error.
 * Needs ffmpeg and ffprobe (apt-get install ffmpeg) and GNU time (/usr/bin/time). Writes
 * bench/results/media.json.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, against: { type: 'string' } } });
const runs = Number(values.runs);
const builds = [
  { name: 'this build', bin: join(ROOT, 'bin/webwatch.js') },
  ...(values.against ? [{ name: 'against', dir: values.against, bin: join(values.against, 'bin/webwatch.js') }] : []),
];
const commitOf = (dir) => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const work = mkdtempSync(join(tmpdir(), 'webwatch-media-bench-'));

const make = (seconds, name, faststart = true) =>
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=1280x720:rate=30',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=44100',
    '-t',
    String(seconds),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    ...(faststart ? ['-movflags', '+faststart'] : []),
    join(work, name),
  ]);
make(60, 'long.mp4');
make(15, 'short.mp4');
// The index (moov) after the media: ffmpeg's default.
make(60, 'long-end.mp4', false);
execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '39', '-i', join(work, 'long-end.mp4'), '-c', 'copy', join(work, 'loop-end.mp4')]);
execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '3', '-i', join(work, 'loop-end.mp4'), '-c', 'copy', join(work, 'loop4-end.mp4')]);

const files = new Map();
const server = createServer((request, response) => {
  const path = new URL(request.url, 'http://x').pathname;
  // /norange/...: a server that ignores Range and answers 200 with the whole file.
  const ranged = !path.startsWith('/norange/');
  const name = path.replace(/^\/norange\//, '/').slice(1);
  if (!files.has(name)) files.set(name, readFileSync(join(work, name)));
  const body = files.get(name);
  if (!ranged) return void response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length }).end(body);
  const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  if (!range) return void response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length, 'accept-ranges': 'bytes' }).end(body);
  const start = Number(range[1]);
  const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
  response
    .writeHead(206, { 'content-type': 'video/mp4', 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': end - start + 1 })
    .end(body.subarray(start, end + 1));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

/** Wall seconds and the peak resident memory (KiB) of webwatch and of its largest child, by GNU time. */
// Asynchronously: the server above answers on this process's event loop.
async function once(bin, path, format) {
  const home = mkdtempSync(join(work, 'home-'));
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, bin, 'scrape', `${origin}/${path}`, '--format', format, '--json'], {
    env: { ...process.env, WEBWATCH_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const status = await new Promise((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (status !== 0) {
    let said = stderr.trim();
    try {
      const answer = JSON.parse(stdout);
      said = `${answer.code}: ${answer.details?.reason ?? answer.error}`;
    } catch {
      // Not the JSON error: stderr says why.
    }
    return { failed: `exit ${status}, ${said}` };
  }
  const peakKiB = Number(stderr.trim().split('\n').pop());
  return { seconds, peakMiB: peakKiB / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sources = [
  { path: 'long.mp4', length: 60, source: '60 s, 1280x720' },
  { path: 'short.mp4', length: 15, source: '15 s, 1280x720' },
  { path: 'norange/long-end.mp4', length: 60, source: '60 s, index at the end, server without Range' },
  { path: 'loop-end.mp4', length: 2400, source: '40 min (52 MB), index at the end, with Range' },
  { path: 'norange/loop-end.mp4', length: 2400, source: '40 min (52 MB), index at the end, server without Range' },
  // Four times the bytes, to see whether the download's memory grows with them (video alone: the MP3 would take minutes).
  { path: 'loop4-end.mp4', length: 9600, source: '160 min (215 MB), index at the end, with Range', formats: ['video'] },
  { path: 'norange/loop4-end.mp4', length: 9600, source: '160 min (215 MB), index at the end, server without Range', formats: ['video'] },
];
const rows = [];
for (const { path, length, source, formats = ['video', 'audio'] } of sources) {
  for (const format of formats) {
    const samples = new Map(builds.map((build) => [build.name, []]));
    // The builds in turn, each run: the machine's load falls on both alike.
    for (let i = 0; i < runs; i++) for (const build of builds) samples.get(build.name).push(await once(build.bin, path, format));
    for (const build of builds) {
      const done = samples.get(build.name).filter((sample) => !sample.failed);
      const failed = samples.get(build.name).find((sample) => sample.failed)?.failed;
      const seconds = done.length > 0 ? median(done.map((s) => s.seconds)) : undefined;
      rows.push({
        build: build.name,
        source,
        format,
        ...(seconds !== undefined && {
          seconds: Math.round(seconds * 100) / 100,
          timesRealTime: Math.round((length / seconds) * 10) / 10,
          peakMiB: Math.round(median(done.map((s) => s.peakMiB))),
        }),
        ...(failed && { failedRuns: runs - done.length, failed }),
      });
    }
  }
}
server.close();
const report = {
  date: new Date().toISOString(),
  machine: {
    cpuModel: cpus()[0]?.model,
    cores: cpus().length,
    node: process.version,
    loadAverage: loadavg()[0],
    ffmpeg: execFileSync('ffmpeg', ['-version'], { encoding: 'utf8' }).split('\n')[0],
  },
  builds: builds.map((build) => ({ name: build.name, commit: commitOf(build.dir ?? ROOT) })),
  runs,
  rows,
};
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/media.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const row of rows)
  console.log(
    `${row.build}\t${row.source}\t${row.format}\t${row.failed ? `FAILED (${row.failedRuns}/${runs}): ${row.failed}` : `${row.seconds} s\t${row.timesRealTime}x real time\tpeak ${row.peakMiB} MiB`}`,
  );
