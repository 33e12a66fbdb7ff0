// The set-up shared by the benches over the saved real pages (../shared/corpus/pages): the
// project root, `--name value` options, and the corpus directory (`--corpus DIR`). Stops with
// exit 2 when the compiled module the bench needs, or the corpus, is missing.
import { existsSync } from 'node:fs';
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
