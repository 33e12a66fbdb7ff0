#!/usr/bin/env node
// A fingerprint of the content pipeline's output, to show that a change meant to keep behaviour
// (a refactor, a speed-up) converts every saved page exactly as before. Both corpora beside the
// project go through convertPage, the entry the scrape uses (decode, parse, clean, main content,
// markdown): Readability's test pages (../shared/corpus/pages, served as UTF-8, as
// corpus.test.ts and scrape-corpus.mjs serve them) and trafilatura's evaluation set
// (../shared/corpus/trafilatura-eval, gunzipped, no charset, as trafilatura-eval.mjs serves it).
// Each page is converted with onlyMainContent true and false, with the formats markdown and html
// (the cleaned HTML as well as its markdown); one SHA-256 is printed over all outputs, and one
// per corpus, with the page counts.
// With --rounds N (default 5, 0 for none) it then times convertPage with the defaults
// (onlyMainContent, markdown) on trafilatura's set, the bodies already in memory: a warm-up
// pass, then N passes, the median wall and CPU milliseconds per page.
// --dist DIR converts with another build (a copy of dist/ from before a change, kept under
// bench/.work/ so that its imports resolve from node_modules); --against DIR runs this script
// on DIR and on dist/ in turns (--runs N each, default 3), says whether the hashes match and
// sets the exit code to 1 when they do not.
// --corpora DIR names the folder holding both (default ../shared/corpus).
// Usage: npx tsc -p . && node bench/content-hash.mjs [--rounds N] [--dist DIR] [--against DIR [--runs N]] [--corpora DIR] [--json]
// Exit 2 when the build or a corpus is missing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isAbsolute, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { arg, root } from './corpus-bench.mjs';

const resolve = (dir) => (isAbsolute(dir) ? dir : join(root, dir));
const dist = resolve(arg('--dist', 'dist'));
const rounds = Number(arg('--rounds', 5));
const against = arg('--against', undefined);
const corpora = resolve(arg('--corpora', join(root, '..', 'shared', 'corpus')));
const readabilityDir = join(corpora, 'pages');
const trafilaturaDir = join(corpora, 'trafilatura-eval');

if (against !== undefined) {
  // Side by side: each build in a process of its own, in turns, so that both see the same load.
  const runs = Number(arg('--runs', 3));
  const self = fileURLToPath(import.meta.url);
  const run = (build) =>
    JSON.parse(
      execFileSync(process.execPath, [self, '--dist', build, '--corpora', corpora, '--rounds', String(rounds), '--json'], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      }),
    );
  const results = { before: [], after: [] };
  for (let i = 0; i < runs; i++) {
    results.before.push(run(resolve(against)));
    results.after.push(run(dist));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const [label, list] of Object.entries(results)) {
    const first = list[0];
    console.log(
      `${label.padEnd(6)} ${first.all}  readability ${first.readability.pages} pages ${first.readability.sha256.slice(0, 16)}  trafilatura ${first.trafilatura.pages} pages ${first.trafilatura.sha256.slice(0, 16)}`,
    );
    if (list.some((entry) => entry.all !== first.all)) console.log(`${label}: the hash differs between runs of the same build`);
    if (first.timing) {
      const each = (key) => list.map((entry) => entry.timing[key].toFixed(3)).join(', ');
      console.log(
        `       ${median(list.map((entry) => entry.timing.wallMsPerPage)).toFixed(3)} ms/page wall, ${median(list.map((entry) => entry.timing.cpuMsPerPage)).toFixed(3)} ms/page CPU (median of ${runs} runs; wall ${each('wallMsPerPage')}; CPU ${each('cpuMsPerPage')})`,
      );
    }
  }
  const same = results.before.every((entry) => entry.all === results.after[0].all) && results.after.every((entry) => entry.all === results.after[0].all);
  console.log(same ? 'identical output' : 'the outputs DIFFER');
  process.exit(same ? 0 : 1);
}

const convertModule = join(dist, 'src/engine/scrape/convert.js');
if (!existsSync(convertModule)) {
  console.error(`${convertModule} is missing: compile first (npx tsc -p .)`);
  process.exit(2);
}
if (!existsSync(readabilityDir) || !existsSync(join(trafilaturaDir, 'pages'))) {
  console.error(`no corpora at ${corpora} (pages/ and trafilatura-eval/pages/; give --corpora DIR)`);
  process.exit(2);
}
const { convertPage } = await import(convertModule);

const readability = readdirSync(readabilityDir)
  .filter((name) => existsSync(join(readabilityDir, name, 'source.html')))
  .sort()
  .map((name) => ({
    name,
    body: readFileSync(join(readabilityDir, name, 'source.html')),
    contentType: 'text/html; charset=utf-8',
    finalUrl: `http://127.0.0.1/${encodeURIComponent(name)}/`,
  }));
const trafilatura = readdirSync(join(trafilaturaDir, 'pages'))
  .sort()
  .map((file) => {
    const raw = readFileSync(join(trafilaturaDir, 'pages', file));
    return {
      name: file,
      body: file.endsWith('.gz') ? gunzipSync(raw) : raw,
      contentType: 'text/html',
      finalUrl: `http://127.0.0.1/${encodeURIComponent(file)}`,
    };
  });

/** The SHA-256 of a corpus's outputs: each page's name, options and outputs, NUL-separated. */
async function corpusHash(pages, all) {
  const hash = createHash('sha256');
  for (const page of pages) {
    for (const onlyMainContent of [true, false]) {
      const { markdown, html } = await convertPage({ body: page.body, contentType: page.contentType, finalUrl: page.finalUrl }, { onlyMainContent }, [
        'markdown',
        'html',
      ]);
      for (const part of [page.name, String(onlyMainContent), markdown, html ?? '']) {
        hash.update(part);
        hash.update('\0');
        all.update(part);
        all.update('\0');
      }
    }
  }
  return { pages: pages.length, sha256: hash.digest('hex') };
}

const all = createHash('sha256');
const result = { dist: dist.slice(root.length + 1) || dist, readability: await corpusHash(readability, all), trafilatura: await corpusHash(trafilatura, all) };
result.all = all.digest('hex');

if (rounds > 0) {
  const pass = async () => {
    for (const page of trafilatura) await convertPage({ body: page.body, contentType: page.contentType, finalUrl: page.finalUrl }, {}, ['markdown']);
  };
  await pass(); // warm-up
  const wall = [];
  const cpu = [];
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    const cpuStarted = process.cpuUsage();
    await pass();
    wall.push(Number(process.hrtime.bigint() - started) / 1e6 / trafilatura.length);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / 1e3 / trafilatura.length);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  result.timing = { pages: trafilatura.length, rounds, wallMsPerPage: median(wall), cpuMsPerPage: median(cpu), wallRounds: wall };
}

if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else {
  console.log(`all outputs    ${result.all}`);
  console.log(`readability    ${result.readability.sha256}  ${result.readability.pages} pages`);
  console.log(`trafilatura    ${result.trafilatura.sha256}  ${result.trafilatura.pages} pages`);
  console.log('(each page with onlyMainContent true and false, markdown and html)');
  if (result.timing)
    console.log(
      `convertPage on trafilatura's set: ${result.timing.wallMsPerPage.toFixed(3)} ms/page wall, ${result.timing.cpuMsPerPage.toFixed(3)} ms/page CPU (median of ${rounds} warm passes)`,
    );
}
