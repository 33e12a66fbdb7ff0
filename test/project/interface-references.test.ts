/**
 * Every section reference in the code can be followed: `spec §2.7`, a bare `§7.1` and `DESIGN §5`
 * name sections of docs/interface.md (of its interface part, or of its design part for DESIGN),
 * which has a heading of each number. A reference to another document's section, as `RFC 9110
 * §5.6.2`, is not ours to resolve.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGE = 'docs/interface.md';
/** The section sign, written as an escape so that the patterns and examples below are no references themselves. */
const S = '\u00a7';

type Document = 'spec' | 'design' | 'other';
interface Reference {
  line: number;
  document: Document;
  section: string;
}

/**
 * The section references of a source text. Which document each names is read from the words
 * before it, across a line break of a comment: `DESIGN` (or `DESIGN.md`) for the design, an RFC,
 * ISO or ECMA number for another document, anything else (`spec`, `the`, nothing) the interface.
 * A reference that continues a list (`§7.2, §7.3`, `§5 and §6`) names the document of the one
 * before it.
 */
function sectionReferences(text: string): Reference[] {
  const references: Reference[] = [];
  let previous: { end: number; document: Document } | undefined;
  for (const match of text.matchAll(new RegExp(`${S}(\\d+(?:\\.\\d+)*)`, 'g'))) {
    const before = text.slice(Math.max(0, match.index - 80), match.index).replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, ' ');
    let document: Document;
    if (previous && /^\s*(?:,|and|or|\/)\s*$/.test(text.slice(previous.end, match.index))) document = previous.document;
    else if (/\bDESIGN(?:\.md)?\s*$/.test(before)) document = 'design';
    else if (/\b(?:RFC\s*\d+|ISO\s*\d+(?:-\d+)?|ECMA-\d+)\s*$/i.test(before)) document = 'other';
    else document = 'spec';
    references.push({ line: text.slice(0, match.index).split('\n').length, document, section: match[1]! });
    previous = { end: match.index + match[0].length, document };
  }
  return references;
}

/** The section numbers of the page's headings: `### §2.7 ...` of the interface, `### DESIGN §5 ...` of the design. */
function pageSections(markdown: string): { spec: Set<string>; design: Set<string> } {
  const sections = { spec: new Set<string>(), design: new Set<string>() };
  for (const line of markdown.split('\n')) {
    const heading = new RegExp(`^#{2,6}\\s+(DESIGN\\s+)?${S}(\\d+(?:\\.\\d+)*)\\s`).exec(line);
    if (heading) sections[heading[1] ? 'design' : 'spec'].add(heading[2]!);
  }
  return sections;
}

/** Every reference of the given files that the page has no heading for, as `file:line: reference`. */
function unresolved(files: { path: string; text: string }[], sections: { spec: Set<string>; design: Set<string> }): string[] {
  return files.flatMap(({ path, text }) =>
    sectionReferences(text)
      .filter(({ document, section }) => document !== 'other' && !sections[document].has(section))
      .map(({ line, document, section }) => `${path}:${line}: ${document === 'design' ? 'DESIGN ' : 'spec '}${S}${section}`),
  );
}

/** The code and prose under src/, test/ and bench/, but the fixtures (pages and documents as found). */
function sources(): { path: string; text: string }[] {
  return ['src', 'test', 'bench'].flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(?:[mc]?ts|[mc]?js|md)$/.test(entry.name))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'))
      .filter((path) => !path.startsWith('test/fixtures/') && !path.startsWith('bench/.work/'))
      .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') })),
  );
}

describe(`the section references of the code (${PAGE})`, () => {
  const sections = pageSections(readFileSync(join(ROOT, PAGE), 'utf8'));

  it('each name a section of the page', () => {
    const files = sources();
    const count = files.reduce((sum, file) => sum + sectionReferences(file.text).length, 0);
    assert.ok(count > 50, `the references were found (${count})`);
    assert.deepEqual(unresolved(files, sections), [], `add the section to ${PAGE}, or say in the comment which document it is in`);
  });

  it('are read with the document they name, and one that names no section is found with its file and line', () => {
    const text = [
      `/** Spec ${S}2.7 and ${S}99.1; DESIGN ${S}5 and ${S}6, DESIGN ${S}42; RFC 9110 ${S}5.6.2. */`,
      `// the limits (spec ${S}8.3), the errors (${S}7.2, ${S}7.9) and the exit codes (DESIGN`,
      `//   ${S}3), where a comment breaks its line`,
      ` * DESIGN.md ${S}4 of the design`,
      `const message = '${S}7.1 as written';`,
    ].join('\n');
    assert.deepEqual(
      sectionReferences(text).map(({ line, document, section }) => `${line} ${document} ${section}`),
      [
        '1 spec 2.7',
        '1 spec 99.1',
        '1 design 5',
        '1 design 6',
        '1 design 42',
        '1 other 5.6.2',
        '2 spec 8.3',
        '2 spec 7.2',
        '2 spec 7.9',
        '3 design 3',
        '4 design 4',
        '5 spec 7.1',
      ],
    );
    assert.deepEqual(unresolved([{ path: 'src/example.ts', text }], sections), [
      `src/example.ts:1: spec ${S}99.1`,
      `src/example.ts:1: DESIGN ${S}42`,
      `src/example.ts:2: spec ${S}8.3`,
      `src/example.ts:2: spec ${S}7.9`,
    ]);
  });

  it('have a page whose sections are those of the interface and of the design, each under its parent', () => {
    assert.deepEqual(
      [...sections.spec].filter((section) => !section.includes('.')),
      ['1', '2', '3', '4', '5', '6', '7', '8', '9'],
    );
    assert.deepEqual([...sections.design], ['1', '2', '3', '4', '5', '6', '7', '8']);
    for (const section of sections.spec) {
      const parent = section.split('.').slice(0, -1).join('.');
      assert.ok(parent === '' || sections.spec.has(parent), `${S}${section} has no ${S}${parent} above it`);
    }
    for (const needed of ['2.7', '2.10', '3.2', '4.2', '6.2', '7.1', '7.5']) assert.ok(sections.spec.has(needed), `${S}${needed}`);
  });
});
