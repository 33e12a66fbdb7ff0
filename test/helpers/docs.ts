/**
 * The project's documentation as tests read it: README.md (what a newcomer reads first) and the
 * reference pages under docs/. Tests that check that something is documented read them all, so
 * that text can move between pages without the check going blind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOCS_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface DocPage {
  /** Relative to the project root, with `/`: `README.md`, `docs/serve.md`. */
  path: string;
  text: string;
}

/** README.md, then every docs/*.md in name order. */
export function documentationPages(root = DOCS_ROOT): DocPage[] {
  const pages = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages].map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
}

/** The whole documentation as one text, pages separated by a blank line. */
export function documentation(root = DOCS_ROOT): string {
  return documentationPages(root)
    .map((page) => page.text)
    .join('\n');
}
