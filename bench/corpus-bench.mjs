// The set-up shared by the benches over the saved real pages (../shared/corpus/pages): the
// project root, `--name value` options, and the corpus directory (`--corpus DIR`). Stops with
// exit 2 when the compiled module the bench needs, or the corpus, is missing; and what the
// benches that learn share: a patched copy of the build, the split into halves, word F1.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The value given after `name`, or `fallback`. */
export const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};

/** The corpus directory, once `built` (a path under the root, e.g. dist/src/...) and it exist. */
export function corpusDir(built) {
  const corpus = arg('--corpus', join(root, '..', 'shared', 'corpus', 'pages'));
  if (!existsSync(join(root, built))) {
    console.error('dist/ is missing: run npm run build first');
    process.exit(2);
  }
  if (!existsSync(corpus)) {
    console.error(`no corpus at ${corpus} (give --corpus DIR)`);
    process.exit(2);
  }
  return corpus;
}

/**
 * A copy of the built tree in a temporary directory (removed at exit), with `module` (a path under
 * dist/src) patched: each [anchor, replacement] pair replaces a line the shipped code has. For the
 * benches that need a seam the engine does not offer: the shipped code is what runs, with those
 * lines changed. Stops with exit 2 when an anchor is gone. Returns the copy's dist/src path maker.
 */
export function patchedBuild(name, module, replacements) {
  const copy = mkdtempSync(join(tmpdir(), `webwatch-${name}-`));
  process.on('exit', () => rmSync(copy, { recursive: true, force: true }));
  cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  const file = join(copy, 'dist/src', module);
  let source = readFileSync(file, 'utf8');
  for (const [anchor, replacement] of replacements) {
    if (!source.includes(anchor)) {
      console.error(`${module} no longer has "${anchor}": the bench's seam needs updating`);
      process.exit(2);
    }
    source = source.replace(anchor, replacement);
  }
  writeFileSync(file, source);
  return (path) => join(copy, 'dist/src', path);
}

/** The half (0 or 1) a page falls in, by a hash of its name: the same split in every bench that learns. */
export const halfOf = (name, byte = 0) => createHash('sha256').update(name).digest()[byte] % 2;

/** Word F1 of a kept text against the expected article (Readability's pages), words counted with repeats. */
export function wordF1(text, want) {
  const words = (value) => {
    const bag = new Map();
    for (const word of value.toLowerCase().split(/\s+/).filter(Boolean)) bag.set(word, (bag.get(word) ?? 0) + 1);
    return bag;
  };
  const got = words(text);
  const wanted = words(want);
  let common = 0;
  for (const [word, count] of got) common += Math.min(count, wanted.get(word) ?? 0);
  const total = (bag) => [...bag.values()].reduce((sum, count) => sum + count, 0);
  const precision = common / Math.max(1, total(got));
  const recall = common / Math.max(1, total(wanted));
  return precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
}
