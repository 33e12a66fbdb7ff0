// Time and peak memory of large office documents: a 50-page DOCX, a 100,000-cell XLSX and a
// 10 MB ODT (text and pictures), read by `webwatch parse` on the embedded engine and uploaded
// to `webwatch serve`'s POST /v2/parse, with /health asked every 20 ms meanwhile.
//
//   node bench/documents-scale.mjs [runs]     (after npm run build; needs LibreOffice and GNU time)
//
// The documents are made by LibreOffice from generated HTML and CSV, so the bench needs no file
// of its own. Peak memory on the engine is GNU time's maximum resident set of the command and of
// its largest child (LibreOffice, pandoc); under serve it is the server's VmHWM, and the
// converter's own peak is not in it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { startServe } from './serve-process.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/webwatch.js');
const runs = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'webwatch-documents-scale-'));
const profile = `-env:UserInstallation=file://${dir}/profile`;

function soffice(input, filter, module) {
  execFileSync('soffice', ['--headless', ...(module ? [module] : []), profile, '--convert-to', filter, '--outdir', dir, input], { stdio: 'ignore' });
}

const words = 'the tender covers supply delivery and maintenance of equipment for the regional offices under terms set out below'.split(' ');
const sentence = (seed, length) => Array.from({ length }, (_, index) => words[(seed * 7 + index * 3) % words.length]).join(' ');

function fiftyPageDocx() {
  const pages = Array.from({ length: 50 }, (_, page) => {
    const paragraphs = Array.from({ length: 7 }, (_, index) => `<p>${sentence(page * 10 + index, 55)}.</p>`).join('');
    const rows = Array.from(
      { length: 6 },
      (_, row) => `<tr>${Array.from({ length: 4 }, (_, cell) => `<td>Lot ${page}.${row}.${cell}</td>`).join('')}</tr>`,
    ).join('');
    return `<h2 style="page-break-before:always">Section ${page + 1}</h2>${paragraphs}<table border="1">${rows}</table>`;
  }).join('');
  writeFileSync(join(dir, 'report.html'), `<html><head><title>Annual report</title></head><body><h1>Annual report</h1>${pages}</body></html>`);
  soffice(join(dir, 'report.html'), 'docx:MS Word 2007 XML', '--writer');
  return join(dir, 'report.docx');
}

function hundredThousandCells() {
  const header = Array.from({ length: 20 }, (_, column) => `Column ${column + 1}`).join(',');
  const rows = Array.from({ length: 5_000 }, (_, row) =>
    Array.from({ length: 20 }, (_, column) => (column % 3 === 0 ? `item ${row}-${column}` : String(row * column))).join(','),
  );
  writeFileSync(join(dir, 'cells.csv'), `${header}\n${rows.join('\n')}\n`);
  soffice(join(dir, 'cells.csv'), 'xlsx:Calc MS Excel 2007 XML', '--calc');
  return join(dir, 'cells.xlsx');
}

/** Pictures of noise do not compress: ten of them and a hundred pages of text make 10 MB. */
function tenMegabyteOdt() {
  const picture = (seed) => {
    const png = new PNG({ width: 640, height: 640 });
    let state = seed * 2654435761;
    for (let index = 0; index < png.data.length; index++) {
      state = (state * 1103515245 + 12345) >>> 0;
      png.data[index] = index % 4 === 3 ? 255 : state >>> 24;
    }
    return PNG.sync.write(png).toString('base64');
  };
  const body = Array.from({ length: 100 }, (_, page) => {
    const image = page % 10 === 0 ? `<p><img src="data:image/png;base64,${picture(page + 1)}" width="320" height="320"></p>` : '';
    return `<h2>Part ${page + 1}</h2>${Array.from({ length: 6 }, (_, index) => `<p>${sentence(page + index, 60)}.</p>`).join('')}${image}`;
  }).join('');
  writeFileSync(join(dir, 'tender.html'), `<html><head><title>Tender</title></head><body>${body}</body></html>`);
  soffice(join(dir, 'tender.html'), 'odt', '--writer');
  return join(dir, 'tender.odt');
}

const documents = [
  { name: '50-page DOCX', path: fiftyPageDocx() },
  { name: '100,000-cell XLSX', path: hundredThousandCells() },
  { name: '10 MB ODT', path: tenMegabyteOdt() },
];

const env = { ...process.env, WEBWATCH_HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config') };
delete env.NODE_OPTIONS;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function engineRun(path) {
  const started = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bin, 'parse', path, '--json'], {
    env,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`parse ${path} failed: ${result.stderr.slice(-500)}`);
  const document = JSON.parse(result.stdout);
  const peakKb = Number(result.stderr.trim().split('\n').at(-1));
  return { ms, peakMb: peakKb / 1024, markdownBytes: Buffer.byteLength(document.data?.markdown ?? '') };
}

const results = [];
for (const document of documents) {
  const timings = Array.from({ length: runs }, () => engineRun(document.path));
  results.push({
    document: document.name,
    bytes: statSync(document.path).size,
    engine: {
      medianMs: Math.round(median(timings.map((t) => t.ms))),
      peakMb: Math.round(Math.max(...timings.map((t) => t.peakMb))),
      markdownBytes: timings[0].markdownBytes,
    },
  });
}

const { server, base, key } = await startServe(bin, env);
const origin = new URL(base).origin;
const vmHwmMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
try {
  for (const [index, document] of documents.entries()) {
    const bytes = readFileSync(document.path);
    const timings = [];
    const health = [];
    for (let run = 0; run < runs; run++) {
      let converting = true;
      const probe = (async () => {
        while (converting) {
          const asked = performance.now();
          await fetch(`${origin}/health`).then((response) => response.arrayBuffer());
          health.push(performance.now() - asked);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const form = new FormData();
      form.append('file', new Blob([bytes]), document.path.split('/').at(-1));
      const started = performance.now();
      const response = await fetch(`${origin}/v2/parse`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const answer = await response.json();
      timings.push(performance.now() - started);
      converting = false;
      await probe;
      if (!answer.success) throw new Error(`${document.name} through serve: ${JSON.stringify(answer).slice(0, 500)}`);
    }
    health.sort((a, b) => a - b);
    results[index].serve = {
      medianMs: Math.round(median(timings)),
      serverPeakMb: Math.round(vmHwmMb()),
      healthMs: {
        median: Number(median(health).toFixed(1)),
        p99: Number(health[Math.floor(health.length * 0.99)].toFixed(1)),
        max: Number(health.at(-1).toFixed(1)),
        samples: health.length,
      },
    };
  }
} finally {
  server.kill('SIGTERM');
}

const machine = {
  cpus: cpus().length,
  model: cpus()[0]?.model,
  node: process.version,
  soffice: execFileSync('soffice', ['--version'], { encoding: 'utf8' }).trim(),
};
const report = { date: new Date().toISOString(), runs, machine, results };
writeFileSync(join(root, 'bench/results/documents-scale.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
