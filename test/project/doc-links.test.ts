/**
 * The links of the documentation (README.md and docs/*.md) lead somewhere: every relative link
 * names a file or directory of the repository, and an anchor (`page.md#section`, `#section`)
 * names a heading of that page as GitHub renders its id. Every docs/ page is reachable from the
 * README and from the index, docs/README.md.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { DOCS_ROOT, documentationPages } from '../helpers/docs.js';
import { tempDir } from '../helpers/files.js';

interface Link {
  target: string;
  line: number;
}

/** The lines of a Markdown text with fenced code blocked out (kept as empty lines, so line numbers hold). */
function withoutFences(text: string): string {
  let fence = '';
  return text
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence) {
        if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = '';
        return '';
      }
      if (marker) {
        fence = marker;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** Code spans (`...`, ``...``) blanked out, newlines kept: a link shown as code is no link. */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** The inline links and images of a Markdown text, with the line each starts on. */
function markdownLinks(text: string): Link[] {
  const prose = withoutCodeSpans(withoutFences(text));
  const links: Link[] = [];
  for (const match of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ target: match[1]!, line: prose.slice(0, match.index).split('\n').length });
  }
  return links;
}

/** A heading's id as GitHub gives it: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown page: each ATX heading's id, repeats numbered as GitHub numbers them. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text).split('\n')) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every relative link of the given pages that does not resolve, as `page:line: target (why)`. */
function brokenLinks(root: string, pages: { path: string; text: string }[]): string[] {
  const broken: string[] = [];
  for (const page of pages) {
    for (const { target, line } of markdownLinks(page.text)) {
      if (/^[a-z][a-z\d+.-]*:/i.test(target)) continue; // https:, mailto: and the like
      const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
      const file = pathPart === '' ? page.path : posix.normalize(posix.join(posix.dirname(page.path), decodeURI(pathPart)));
      const where = `${page.path}:${line}: ${target}`;
      if (file.startsWith('../') || !existsSync(join(root, file))) {
        broken.push(`${where} (no file ${file})`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!file.endsWith('.md') || statSync(join(root, file)).isDirectory()) {
        broken.push(`${where} (an anchor into ${file}, which is not a Markdown page)`);
        continue;
      }
      if (!headingAnchors(readFileSync(join(root, file), 'utf8')).has(anchor)) {
        broken.push(`${where} (${file} has no heading #${anchor})`);
      }
    }
  }
  return broken;
}

describe("the documentation's links", () => {
  const pages = documentationPages();

  it('find the files and headings they name', () => {
    assert.ok(pages.length > 5, 'the README and the docs/ pages were read');
    assert.ok(pages.reduce((count, page) => count + markdownLinks(page.text).length, 0) > 50, 'the links were found');
    assert.deepEqual(brokenLinks(DOCS_ROOT, pages), []);
  });

  it('reach every docs/ page from the README and from docs/README.md', () => {
    const targetsOf = (path: string) => {
      const page = pages.find((candidate) => candidate.path === path);
      assert.ok(page, `${path} exists`);
      return new Set(markdownLinks(page.text).map(({ target }) => posix.normalize(posix.join(posix.dirname(path), target.split('#', 1)[0]!))));
    };
    const fromReadme = targetsOf('README.md');
    const fromIndex = targetsOf('docs/README.md');
    const reference = pages.map((page) => page.path).filter((path) => path.startsWith('docs/') && path !== 'docs/README.md');
    assert.deepEqual(
      reference.filter((path) => !fromReadme.has(path)),
      [],
      'pages the README does not link',
    );
    assert.deepEqual(
      reference.filter((path) => !fromIndex.has(path)),
      [],
      'pages docs/README.md does not link',
    );
  });

  it('are checked: a missing file, a missing heading and a link out of the repository are each found', () => {
    const root = tempDir();
    mkdirSync(join(root, 'docs'));
    mkdirSync(join(root, 'bench'));
    writeFileSync(join(root, 'bench', 'README.md'), '# Bench\n');
    const guide = [
      '# Guide',
      '',
      '## Two words',
      '',
      '## Two words',
      '',
      'See [the top](#guide), [the second](#two-words-1), [bench](../bench/README.md#bench),',
      '[gone](missing.md), [no heading](#nowhere) and [outside](../../etc/passwd).',
      '[A link in code is none](`x`): `[x](nothing.md)`',
      '',
      '```md',
      '[in a fence](nothing.md)',
      '```',
      '',
    ].join('\n');
    writeFileSync(join(root, 'docs', 'guide.md'), guide);
    const readme = 'Read [the guide](docs/guide.md#two-words), [its bench](bench/README.md#benches) and [mail](mailto:a@example.com).\n';
    writeFileSync(join(root, 'README.md'), readme);
    assert.deepEqual(
      brokenLinks(root, [
        { path: 'README.md', text: readme },
        { path: 'docs/guide.md', text: guide },
      ]),
      [
        'README.md:1: bench/README.md#benches (bench/README.md has no heading #benches)',
        'docs/guide.md:8: missing.md (no file docs/missing.md)',
        'docs/guide.md:8: #nowhere (docs/guide.md has no heading #nowhere)',
        'docs/guide.md:8: ../../etc/passwd (no file ../etc/passwd)',
      ],
    );
  });

  it('name headings as GitHub does', () => {
    const anchors = headingAnchors(
      '# webwatch\n## Bringing monitors under files: `monitor export`\n### `monitor validate`\n## E-mail\n## E-mail\n```\n## not a heading\n```\n',
    );
    assert.deepEqual([...anchors], ['webwatch', 'bringing-monitors-under-files-monitor-export', 'monitor-validate', 'e-mail', 'e-mail-1']);
  });
});
