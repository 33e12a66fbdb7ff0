#!/usr/bin/env node
// Change detection on real pages: does a monitor check say `changed` when a reader would see
// something new, and `same` for noise? Each page of the corpus (Readability's test pages with
// expected.html and a fixed sample of trafilatura's evaluation set) gets seven versions: v0
// with volatile elements inserted, then six steps of one change each, noise (a relative time,
// a counter, an ad, a token, cache-busting URLs, hashed classes...) or an edit of the
// article's own prose, headline or title. All versions are served from 127.0.0.1; each tool
// checks every page once per step; the report gives per kind the false alerts (noise) and
// misses (edits), errors, F1 and the time per check, for half A (tuning) and half B (held out).
// Usage: npm run build && node bench/change-detection.mjs [--pages 120] [--seed 1] [--half both]
//   [--tools webwatch,urlwatch] [--bin PATH]... [--corpus DIR] [--dump DIR] [--timeout 300]
// Exit 2 when a build (dist/src/cli/main.js) or the corpus is missing; 1 when the versions'
// self-check fails or a tool cannot be run at all.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { candidates, halfOf, loadPage } from './change-detection/corpus.mjs';
import { EDITS } from './change-detection/edits.mjs';
import { NOISE } from './change-detection/noise.mjs';
import { preparePage } from './change-detection/page.mjs';
import { buildHalf, STEPS } from './change-detection/versions.mjs';
import { urlwatchTool, webwatchTool } from './change-detection/tools.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const args = (name) => argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
const fail = (code, message) => {
  console.error(message);
  process.exit(code);
};

const corpus = resolve(arg('--corpus', join(root, '..', 'shared', 'corpus')));
const pageCount = Number(arg('--pages', 120));
const seed = arg('--seed', '1');
const halfOption = arg('--half', 'both');
const dumpDir = arg('--dump', undefined);
const timeoutMs = Number(arg('--timeout', 300)) * 1000;
const outFile = resolve(arg('--out', join(root, 'bench/results/change-detection.json')));
const toolNames = arg('--tools', 'webwatch,urlwatch')
  .split(',')
  .map((t) => t.trim())
  .filter(Boolean);
if (!(pageCount >= 4)) fail(2, `--pages must be a number of at least 4, got ${arg('--pages')}`);
if (!['A', 'B', 'both'].includes(halfOption)) fail(2, `--half must be A, B or both, got ${halfOption}`);
const halves = halfOption === 'both' ? ['A', 'B'] : [halfOption];
for (const name of toolNames)
  if (!['webwatch', 'urlwatch', 'urlwatch-html2text', 'urlwatch-raw'].includes(name))
    fail(2, `unknown tool ${name} (webwatch, urlwatch, urlwatch-html2text, urlwatch-raw)`);

// The builds: this one, or those given with --bin (each a column of its own).
const bins = (args('--bin').length ? args('--bin') : [join(root, 'bin/webwatch.js')]).map((bin) => resolve(bin));
const git = (cwd, gitArgs) => spawnSync('git', ['-C', cwd, ...gitArgs], { encoding: 'utf8' }).stdout?.trim() ?? '';
const builds = toolNames.includes('webwatch')
  ? bins.map((bin) => {
      const buildRoot = resolve(dirname(bin), '..');
      if (!existsSync(bin)) fail(2, `no ${bin}`);
      if (!existsSync(join(buildRoot, 'dist/src/cli/main.js')))
        fail(2, `${relative(root, buildRoot) || '.'}: dist/src/cli/main.js is missing: run npm run build there first`);
      const commit = git(buildRoot, ['rev-parse', 'HEAD']);
      const dirty = git(buildRoot, ['status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench']) !== '';
      return { bin, buildRoot, path: relative(root, bin), commit, dirty };
    })
  : [];
builds.forEach((build, i) => {
  build.label = builds.length === 1 ? 'webwatch' : `webwatch@${build.commit.slice(0, 7)}${build.dirty ? '+' : ''}`;
  if (builds.some((other, j) => j !== i && other.label === build.label)) build.label += `#${i + 1}`;
});
if (!existsSync(join(corpus, 'pages')) || !existsSync(join(corpus, 'trafilatura-eval', 'expected.json')))
  fail(2, `no corpus at ${corpus} (pages/ and trafilatura-eval/; give --corpus DIR)`);

const urlwatchVariants = toolNames.includes('urlwatch')
  ? ['html2text', 'raw']
  : toolNames.filter((t) => t.startsWith('urlwatch-')).map((t) => t.slice('urlwatch-'.length));
let urlwatchVersion = null;
if (urlwatchVariants.length) {
  const version = spawnSync('urlwatch', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) console.error('urlwatch is not installed (Debian: apt-get install urlwatch): skipped');
  else urlwatchVersion = version.stdout.trim().replace(/^urlwatch\s*/, '');
}
const CHANGEDETECTION =
  'changedetection.io: not available from the npm registry or Debian (checked with `apt-cache search changedetection` and `npm view changedetection.io`, 2026-12-01); skipped';

// The pages: the Readability pages that can be used, then trafilatura's sample up to --pages in all.
const startedAt = Date.now();
const loadAtStart = loadavg().map((x) => +x.toFixed(2));
const list = candidates(corpus, pageCount);
const usable = (page) => {
  const prepared = preparePage(page);
  return prepared.blocks.length >= 2 && prepared.editableNodes.length >= 1;
};
const chosen = [];
const unusable = [];
for (const entry of list.readability) {
  if (chosen.length >= list.readabilityWanted) break;
  const page = loadPage(entry);
  if (usable(page)) chosen.push(page);
  else unusable.push(entry.id);
}
for (const entry of list.trafilatura) {
  if (chosen.length >= pageCount) break;
  const page = loadPage(entry);
  if (usable(page)) chosen.push(page);
  else unusable.push(entry.id);
}
chosen.sort((a, b) => (a.id < b.id ? -1 : 1));

const built = {};
const problems = [];
const skipped = [];
for (const half of halves) {
  const result = buildHalf(
    chosen.filter((page) => halfOf(page.id) === half),
    { seed },
  );
  built[half] = result.pages;
  problems.push(...result.problems.map((p) => ({ half, ...p })));
  skipped.push(...result.skipped.map((s) => ({ half, ...s })));
}
const buildSeconds = (Date.now() - startedAt) / 1000;
if (problems.length) {
  for (const p of problems.slice(0, 20)) console.error(`self-check: ${p.half} ${p.id} step ${p.step} ${p.kind ?? ''}: ${p.problem}`);
  fail(1, `${problems.length} steps failed the self-check of the versions; nothing was measured`);
}
console.log(
  `${halves.map((h) => `half ${h}: ${built[h].length} pages`).join(', ')} (seed ${seed}); versions built and self-checked in ${buildSeconds.toFixed(1)} s`,
);
for (const half of halves) if (!built[half].length) fail(1, `half ${half} has no usable page: give more --pages`);

// One server for every version: /p/<page-id> answers the current step's version.
const serving = new Map();
const requests = new Map();
const server = createServer((request, response) => {
  const match = /^\/p\/([^/?#]+)$/.exec(request.url);
  const body = match && serving.get(decodeURIComponent(match[1]));
  if (!body) return response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  requests.set(match[1], (requests.get(match[1]) ?? 0) + 1);
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length, 'cache-control': 'no-store' }).end(body);
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const origin = `http://127.0.0.1:${server.address().port}`;
const urlOf = (id) => `${origin}/p/${encodeURIComponent(id)}`;
const serve = (pages, step) => {
  serving.clear();
  requests.clear();
  for (const page of pages) serving.set(page.id, page.versions[step]);
};

const work = mkdtempSync(join(tmpdir(), 'webwatch-change-detection-'));
const toolBudgetMs = Math.max(10 * 60e3, 2 * timeoutMs);
const runs = {};
try {
  for (const half of halves) {
    const pages = built[half];
    const urls = pages.map((p) => urlOf(p.id));
    runs[half] = {};
    const tools = [
      ...builds.map((build) => ({
        label: build.label,
        make: (dir) => webwatchTool({ bin: build.bin, label: build.label, work: dir, urls, monitorName: `change-detection-${half}`, timeoutMs }),
      })),
      ...(urlwatchVersion
        ? urlwatchVariants.map((variant) => ({
            label: `urlwatch ${variant}`,
            make: (dir) => urlwatchTool({ label: `urlwatch ${variant}`, work: dir, urls, filter: variant === 'raw' ? null : variant, timeoutMs }),
          }))
        : []),
    ];
    for (const { label, make } of tools) {
      const tool = await make(join(work, `${half}-${label.replace(/[^A-Za-z0-9.-]+/g, '_')}`));
      const began = Date.now();
      const steps = [];
      for (let step = 0; step <= STEPS; step++) {
        if (Date.now() - began > toolBudgetMs) {
          steps.push({ step, error: `not run: the tool's ${toolBudgetMs / 1000} s budget was used up` });
          continue;
        }
        serve(pages, step);
        const result = await tool.check();
        const verdicts = {};
        for (const page of pages)
          verdicts[page.id] = result.verdicts?.[urlOf(page.id)] ?? { status: 'missing', diff: null, error: result.error ?? 'no verdict for this URL' };
        steps.push({ step, seconds: result.seconds, error: result.error ?? null, verdicts, fetched: [...requests.values()].reduce((a, b) => a + b, 0) });
        if (result.error) console.error(`${label}, half ${half}, step ${step}: ${result.error}`);
      }
      runs[half][label] = steps;
      const times = steps.filter((s) => s.seconds).map((s) => s.seconds.toFixed(2));
      console.log(`half ${half}, ${label}: 7 checks of ${pages.length} pages, ${times.join(' ')} s`);
    }
  }
} finally {
  server.close();
  rmSync(work, { recursive: true, force: true });
}

// Scores: a noise step alerted is a false alert, an edit step not alerted a miss; errors apart.
const outcome = (status) => (status === 'changed' || status === 'new' ? 'alert' : status === 'same' ? 'quiet' : 'error');
const noiseKinds = NOISE.map((k) => k.name);
const editKinds = EDITS.map((k) => k.name);
function score(pages, steps) {
  const noise = Object.fromEntries(noiseKinds.map((k) => [k, { steps: 0, alerts: 0, errors: 0 }]));
  const edit = Object.fromEntries(editKinds.map((k) => [k, { steps: 0, misses: 0, errors: 0 }]));
  let firstCheckNotNew = 0;
  for (const page of pages) {
    if (steps[0]?.verdicts && steps[0].verdicts[page.id].status !== 'new') firstCheckNotNew++;
    for (const s of page.steps) {
      const verdict = steps[s.step]?.verdicts?.[page.id];
      const result = outcome(verdict?.status ?? 'missing');
      if (s.type === 'noise') {
        const row = noise[s.kind];
        row.steps++;
        if (result === 'alert') row.alerts++;
        if (result === 'error') row.errors++;
      } else if (edit[s.kind]) {
        const row = edit[s.kind];
        row.steps++;
        if (result === 'quiet') row.misses++;
        if (result === 'error') row.errors++;
      }
    }
  }
  const sum = (rows, key) => Object.values(rows).reduce((a, r) => a + r[key], 0);
  const fp = sum(noise, 'alerts');
  const fn = sum(edit, 'misses');
  const editErrors = sum(edit, 'errors');
  const tp = sum(edit, 'steps') - fn - editErrors;
  const later = steps
    .slice(1)
    .filter((s) => s.seconds)
    .map((s) => s.seconds);
  return {
    noise,
    edit,
    totals: {
      noiseSteps: sum(noise, 'steps'),
      falseAlerts: fp,
      editSteps: sum(edit, 'steps'),
      misses: fn,
      errors: sum(noise, 'errors') + editErrors,
      tp,
      fp,
      fn,
      f1: tp + fp + fn ? +((2 * tp) / (2 * tp + fp + fn)).toFixed(3) : null,
      firstCheckNotNew,
    },
    seconds: {
      pages: pages.length,
      firstCheck: steps[0]?.seconds ? +steps[0].seconds.toFixed(3) : null,
      perLaterCheck: later.length ? +(later.reduce((a, b) => a + b, 0) / later.length).toFixed(3) : null,
      all: steps.map((s) => (s.seconds ? +s.seconds.toFixed(3) : null)),
    },
    runErrors: steps.filter((s) => s.error).map((s) => ({ step: s.step, error: s.error })),
  };
}
const results = {};
for (const half of halves) {
  results[half] = {};
  for (const [label, steps] of Object.entries(runs[half])) results[half][label] = score(built[half], steps);
}

// The table: one per half, B (held out) last as the headline.
const pct = (a, b) => (b ? `${Math.round((100 * a) / b)}%` : '-');
const cell = (a, b, errors) => `${a}/${b} ${pct(a, b)}${errors ? ` e${errors}` : ''}`;
function table(half) {
  const labels = Object.keys(results[half]);
  const width = 24;
  const lines = [];
  const row = (name, cells) => lines.push(`${name.padEnd(24)}${cells.map((c) => String(c).padStart(width)).join('')}`);
  lines.push(`Half ${half} (${half === 'A' ? 'tuning' : 'held out'}): ${built[half].length} pages, ${built[half].length * STEPS} steps`);
  row('', labels);
  lines.push('noise: false alerts');
  for (const kind of noiseKinds) {
    if (!labels.some((l) => results[half][l].noise[kind].steps)) continue;
    row(
      `  ${kind}`,
      labels.map((l) => cell(results[half][l].noise[kind].alerts, results[half][l].noise[kind].steps, results[half][l].noise[kind].errors)),
    );
  }
  lines.push('edits: misses');
  for (const kind of editKinds) {
    if (!labels.some((l) => results[half][l].edit[kind].steps)) continue;
    row(
      `  ${kind}`,
      labels.map((l) => cell(results[half][l].edit[kind].misses, results[half][l].edit[kind].steps, results[half][l].edit[kind].errors)),
    );
  }
  row(
    'false alerts, all noise',
    labels.map((l) => cell(results[half][l].totals.falseAlerts, results[half][l].totals.noiseSteps)),
  );
  row(
    'misses, all edits',
    labels.map((l) => cell(results[half][l].totals.misses, results[half][l].totals.editSteps)),
  );
  row(
    'errors',
    labels.map((l) => results[half][l].totals.errors),
  );
  row(
    'F1',
    labels.map((l) => results[half][l].totals.f1?.toFixed(3) ?? '-'),
  );
  row(
    's first check',
    labels.map((l) => results[half][l].seconds.firstCheck?.toFixed(2) ?? '-'),
  );
  row(
    's per later check',
    labels.map((l) => results[half][l].seconds.perLaterCheck?.toFixed(2) ?? '-'),
  );
  return lines.join('\n');
}
for (const half of halves) console.log(`\n${table(half)}`);
console.log(`\n${CHANGEDETECTION}`);
if (urlwatchVariants.length && !urlwatchVersion) console.log('urlwatch: not installed, skipped');

// --dump: one file per wrong verdict of half A (never B), with webwatch's diff.
if (dumpDir && runs.A) {
  const dir = resolve(dumpDir);
  mkdirSync(join(dir, 'html'), { recursive: true });
  let written = 0;
  for (const build of builds) {
    const steps = runs.A[build.label];
    if (!steps) continue;
    for (const page of built.A) {
      for (const s of page.steps) {
        const verdict = steps[s.step]?.verdicts?.[page.id];
        const result = outcome(verdict?.status ?? 'missing');
        const wrong = s.type === 'noise' ? result !== 'quiet' : result !== 'alert';
        if (!wrong) continue;
        const name = `${build.label.replace(/[^A-Za-z0-9.-]+/g, '_')}-${page.id}-step${s.step}-${s.kind}`;
        for (const v of [s.step - 1, s.step]) {
          const file = join(dir, 'html', `${page.id}-v${v}.html`);
          if (!existsSync(file)) writeFileSync(file, page.versions[v]);
        }
        writeFileSync(
          join(dir, `${name}.txt`),
          [
            `page: ${page.id} (${page.set} ${page.name}, lang ${page.lang}), half A, seed ${seed}`,
            `step: ${s.step} (v${s.step - 1} -> v${s.step}: html/${page.id}-v${s.step - 1}.html, html/${page.id}-v${s.step}.html)`,
            `kind: ${s.kind} (${s.type}: expected ${s.type === 'noise' ? 'same' : 'changed'})`,
            `change: ${s.description}`,
            ...(s.v0 ? [`in v0: ${s.v0}`] : []),
            `${build.label} said: ${verdict?.status ?? 'missing'}${verdict?.error ? ` (${verdict.error})` : ''}`,
            '',
            verdict?.diff ?? '(no diff)',
            '',
          ].join('\n'),
        );
        written++;
      }
    }
  }
  console.log(`\n--dump: ${written} wrong verdicts of half A in ${relative(process.cwd(), dir) || '.'}`);
}

const cpuModel = (readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m) ?? [])[1] ?? cpus()[0]?.model;
const report = {
  date: new Date().toISOString(),
  machine: {
    cpu: cpuModel,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: loadavg().map((x) => +x.toFixed(2)),
  },
  versions: { urlwatch: urlwatchVersion, changedetection: CHANGEDETECTION },
  bench: { commit: git(root, ['rev-parse', 'HEAD']) },
  builds: builds.map(({ label, path, commit, dirty }) => ({ label, bin: path, commit, uncommittedChangesOutsideBench: dirty })),
  options: { pages: pageCount, seed, half: halfOption, tools: toolNames, corpus: relative(root, corpus) || '.', timeoutSeconds: timeoutMs / 1000 },
  seconds: { buildingVersions: +buildSeconds.toFixed(1), total: +((Date.now() - startedAt) / 1000).toFixed(1) },
  kinds: { noise: NOISE.map((k) => ({ name: k.name, visible: k.visible })), edits: editKinds },
  notUsed: { candidates: unusable, afterBuilding: skipped },
  results,
  pages: Object.fromEntries(
    halves.map((half) => [
      half,
      built[half].map((page) => ({
        id: page.id,
        set: page.set,
        lang: page.lang,
        headline: page.headline,
        articleBlocks: page.blocks,
        bytes: page.versions.map((v) => v.length),
        steps: page.steps.map(({ step, type, kind, description, v0 }) => ({ step, type, kind, description, ...(v0 && { v0 }) })),
        verdicts: Object.fromEntries(Object.entries(runs[half]).map(([label, steps]) => [label, steps.map((s) => s.verdicts?.[page.id]?.status ?? 'missing')])),
      })),
    ]),
  ),
};
mkdirSync(dirname(outFile), { recursive: true });
// Indented, with lists of plain values (verdicts, sizes, times) on one line each.
const json = JSON.stringify(report, null, 1).replace(
  /\[\n\s*([^[\]{}\n]*(?:\n\s*[^[\]{}\n]*)*?)\n\s*\]/g,
  (_, inner) => `[${inner.split(/,\n\s*/).join(', ')}]`,
);
writeFileSync(outFile, `${json}\n`);
console.log(`\nwritten to ${relative(process.cwd(), outFile)}; ${report.seconds.total} s in all`);
