#!/usr/bin/env node
/**
 * The video and audio formats on a 60-second 720p source served on 127.0.0.1 (with range
 * requests): wall time and peak memory of `webwatch scrape --format video`, then `--format
 * audio`, against the source's own length (goal: 10 times faster than real time), and the same
 * for a 15-second source, to see that memory does not grow with length.
 *
 * Usage: npm run build && node bench/media.mjs [--runs 3]
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
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const work = mkdtempSync(join(tmpdir(), 'webwatch-media-bench-'));

const make = (seconds, name) => execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100',
  '-t', String(seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart', join(work, name)]);
make(60, 'long.mp4');
make(15, 'short.mp4');

const server = createServer((request, response) => {
  const body = readFileSync(join(work, new URL(request.url, 'http://x').pathname.slice(1)));
  const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  if (!range) return void response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length, 'accept-ranges': 'bytes' }).end(body);
  const start = Number(range[1]);
  const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
  response.writeHead(206, { 'content-type': 'video/mp4', 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': end - start + 1 }).end(body.subarray(start, end + 1));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

/** Wall seconds and the peak resident memory (KiB) of webwatch and of its largest child, by GNU time. */
// Asynchronously: the server above answers on this process's event loop.
async function once(file, format) {
  const home = mkdtempSync(join(work, 'home-'));
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, join(ROOT, 'bin/webwatch.js'), 'scrape', `${origin}/${file}`, '--format', format, '--json'], { env: { ...process.env, WEBWATCH_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const status = await new Promise((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (status !== 0) throw new Error(`${format} of ${file}: exit ${status}: ${stderr}`);
  const peakKiB = Number(stderr.trim().split('\n').pop());
  return { seconds, peakMiB: peakKiB / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [file, length] of [['long.mp4', 60], ['short.mp4', 15]]) {
  for (const format of ['video', 'audio']) {
    const samples = [];
    for (let i = 0; i < runs; i++) samples.push(await once(file, format));
    const seconds = median(samples.map((s) => s.seconds));
    rows.push({ source: `${length} s, 1280x720`, format, seconds: Math.round(seconds * 100) / 100, timesRealTime: Math.round((length / seconds) * 10) / 10, peakMiB: Math.round(median(samples.map((s) => s.peakMiB))) });
  }
}
server.close();
const report = { date: new Date().toISOString(), machine: { cpuModel: cpus()[0]?.model, cores: cpus().length, node: process.version, loadAverage: loadavg()[0], ffmpeg: execFileSync('ffmpeg', ['-version'], { encoding: 'utf8' }).split('\n')[0] }, runs, rows };
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/media.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const row of rows) console.log(`${row.source}\t${row.format}\t${row.seconds} s\t${row.timesRealTime}x real time\tpeak ${row.peakMiB} MiB`);
