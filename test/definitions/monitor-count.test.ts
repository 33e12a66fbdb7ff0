/**
 * Counting monitors without parsing (documents, and the items of a root list): the same count as
 * the parser's on well-formed YAML; on broken YAML, the count on the parser's tokens is never
 * lower than the items the parser builds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSeq, parseAllDocuments, Parser } from 'yaml';
import { countMonitors, countParsedMonitors } from '../../src/core/definitions/monitor-count.js';

/** What the parser builds: one per document, or the items of a document whose root is a list. */
function parsedMonitors(text: string): { count: number; wellFormed: boolean } {
  const docs = parseAllDocuments(text);
  const count = docs.reduce((sum, doc) => sum + (isSeq(doc.contents) ? Math.max(1, doc.contents.items.length) : 1), 0);
  return { count, wellFormed: docs.every((doc) => doc.errors.length === 0) };
}

const countOnTokens = (text: string) => countParsedMonitors(Array.from(new Parser().parse(text)));

/** A seeded generator (mulberry32), so that a failure is found again with the same texts. */
function random(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

describe('countMonitors', () => {
  const wellFormed: Record<string, string> = {
    'an empty text': '',
    'only blank lines and comments': '\n  \n# a comment\n\t# another\n',
    'one document without a marker': 'name: a\n',
    'a first document without a marker, then two': 'name: a\n---\nname: b\n---\nname: c\n',
    'comments and a directive before the first marker': '# monitors\n%YAML 1.2\n---\nname: a\n',
    'markers with a comment or content after them': '--- # first\nname: a\n--- {name: b}\n---\tname: c\n',
    'empty documents': '---\n---\n---\n',
    'an end marker, then a document without a start marker': 'name: a\n...\nname: b\n',
    'an end marker between documents, which ends an empty one': 'name: a\n...\n# between\n...\n',
    'end markers around each document': '---\nname: a\n...\n---\nname: b\n...\n',
    'lines that only look like markers': 'name: a\ngoal: x\n----\n---a\n...b\n',
    'a marker inside an indented block scalar': 'name: a\ngoal: |\n  ---\n  ...\n  text\n',
    'a block scalar at the root, ended by a marker': '--- |\ntext\n---\nname: b\n',
    'Windows line ends': 'name: a\r\n---\r\nname: b\r\n...\r\nname: c\r\n',
    'a byte order mark before the first marker': '\ufeff---\nname: a\n',
    'no newline after the last marker': 'name: a\n---',
    'a list of monitors': '- name: a\n  goal: "---"\n- name: b\n',
    'an indented list, items on the line after their dash, empty items': '  - name: a\n  -\n    name: b\n  -\n',
    'lists nested in items, and lists as values at the left margin': '- name: a\n  targets:\n  - type: scrape\n    urls:\n    - u\n    - v\n- - x\n  - y\n',
    'a list under a tag, an anchor, a comment': '--- !!seq\n- a\n- b\n---\n&monitors\n# the first\n- c\n',
    'a mapping whose values are lists at the left margin': 'name: a\ntargets:\n- type: scrape\n- type: search\n',
    'items holding block scalars, quoted and plain scalars over lines': '- |\n  - not an item\n- "a\n  - b"\n- plain\n  - continued\n',
    'a dash that begins a plain scalar': '-a\n',
    'lists in several documents, with mappings': '- a\n- b\n---\nname: c\n---\n- d\n',
    'an empty list, and lists of lists': '[]\n---\n[[a, b], [c]]\n',
    'a flow list of mappings over lines (JSON)': '[\n  {"name": "a", "targets": [{"type": "scrape"}]},\n  {"name": "b, c"}\n]\n',
    'a flow list with a trailing comma, quotes and comments': "[a, 'b, ''c', \"d, \\\" e\", # f, g\n h,]\n",
    'a flow list whose plain scalars hold quotes and colons': '[a "b, c" d, https://x.example/y, k: v, "k":v]\n',
    'a flow list whose plain scalar runs over a line': '[a\n"b, c", d]\n',
    'a flow list after properties and a marker': '--- &a !!seq [a, b]\n',
    'a flow list with aliases and explicit keys': '[&x a, *x, ? k : v, : w]\n',
    'a flow mapping at the root': '{a: [1, 2], b: 3}\n',
  };
  for (const [name, text] of Object.entries(wellFormed)) {
    it(`counts as the parser does: ${name}`, () => {
      const parsed = parsedMonitors(text);
      assert.equal(countMonitors(text), parsed.count);
      assert.equal(countOnTokens(text), parsed.count);
    });
  }

  it('counts every document and item of a long file', () => {
    const documents = Array.from({ length: 12_345 }, (_, i) => `name: m${i}`).join('\n---\n');
    assert.equal(countMonitors(documents), 12_345);
    const blockList = Array.from({ length: 12_345 }, (_, i) => `- name: m${i}\n  goal: g`).join('\n');
    assert.equal(countMonitors(blockList), 12_345);
    assert.equal(countMonitors(`[${Array.from({ length: 12_345 }, (_, i) => `{name: m${i}}`).join(',\n ')}]`), 12_345);
  });

  it('counts documents and lists of one file together', () => {
    const text = `name: a\n---\n${'- name: b\n'.repeat(3)}---\n[${'{name: c}, '.repeat(4)}]\n---\n---\n[]\n`;
    assert.equal(countMonitors(text), 1 + 3 + 4 + 1 + 1);
    assert.equal(countMonitors(text), parsedMonitors(text).count);
  });

  // Lines from which random texts are made: documents and their markers, block lists at several
  // columns, scalars over lines, flow collections over lines, properties. An explicit key (`? k`)
  // is left out: after one, an unclosed quote runs to the end of the text and the parser reports
  // no error, so a marker inside it counts as a document here while the parser sees none.
  const lines = [
    '---',
    '--- # c',
    '--- |',
    '...',
    '... # c',
    'name: a',
    '  goal: b',
    '- x',
    '  - y',
    '- - z',
    '-',
    '# c',
    '',
    '%YAML 1.2',
    '\t',
    ' ---',
    '  ...',
    '----',
    'k: |',
    '  text',
    'k: "a',
    '  b"',
    'k: [1,',
    '  2]',
    "'s",
    ': v',
    '- "a',
    '- [b,',
    'c]',
    '&a',
    '!!seq',
    '\t- t',
    ' - w',
    '- k: v',
    '    - deep',
    '- &x a',
    '- *x',
    '[a, b]',
    '--- [c,',
    '[',
    ']',
    '{a: b}',
    '"a, b"',
    "'a, ''b'",
    'x,',
    ', y',
    '"k":v,',
    'x #c, d',
    'a "b',
    'c",',
    '[a,',
    ' b]',
    '&x a,',
    '*x,',
    '!t [',
    'http://x, y',
    '\t]',
    ',,',
    '"a\\"b"',
    '{',
    '}',
  ];

  it('agrees with the parser on well-formed texts made of random lines', () => {
    const pick = random(7);
    let wellFormedTexts = 0;
    for (let i = 0; i < 4000; i++) {
      const text = Array.from({ length: 1 + pick(10) }, () => lines[pick(lines.length)]).join(pick(2) ? '\n' : '\r\n');
      const parsed = parsedMonitors(text);
      if (!parsed.wellFormed) continue;
      wellFormedTexts++;
      assert.equal(countMonitors(text), parsed.count, JSON.stringify(text));
    }
    assert.ok(wellFormedTexts > 500, `only ${wellFormedTexts} well-formed texts`);
  });

  it("on the parser's tokens, is never lower than the items the parser builds, however broken the text", () => {
    const pick = random(11);
    let broken = 0;
    for (let i = 0; i < 4000; i++) {
      const text = Array.from({ length: 1 + pick(10) }, () => [...lines, '? k'][pick(lines.length + 1)]).join(pick(2) ? '\n' : '\r\n');
      const parsed = parsedMonitors(text);
      if (!parsed.wellFormed) broken++;
      assert.ok(countOnTokens(text) >= parsed.count, JSON.stringify(text));
      if (parsed.wellFormed) assert.ok(countMonitors(text) >= parsed.count, JSON.stringify(text));
    }
    assert.ok(broken > 1000, `only ${broken} broken texts`);
  });

  it('counts a marker that breaks a quoted scalar or a list, as the YAML rules forbid them there', () => {
    // Broken YAML: the parser reports the marker as an error and may count fewer documents.
    for (const text of ['goal: "a\n---\nb"\n', 'urls: [a,\n---\nb]\n', "goal: 'a\r\n--- x\r\nb'\r\n", '[a, "b\n---\n", c]\n']) {
      assert.ok(countMonitors(text) >= parsedMonitors(text).count, JSON.stringify(text));
    }
    assert.equal(countMonitors('goal: "a\n---\nb"\n'), 2);
  });

  it('leaves wrongly indented items that the parser takes into a list to the count on its tokens', () => {
    // After a comment line, the parser puts ` - y` into the root list as an item of its own, with an error.
    const text = '- b\n#\n - y\n'.repeat(10);
    const parsed = parsedMonitors(text);
    assert.equal(parsed.wellFormed, false);
    assert.equal(parsed.count, 20);
    assert.equal(countMonitors(text), 10);
    assert.equal(countOnTokens(text), 20);
  });
});
