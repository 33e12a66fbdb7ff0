/** Counting YAML documents without parsing: the same count as the parser's, on every form of separator. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { countYamlDocuments } from '../../src/core/definitions/documents.js';

const parsedDocuments = (text: string) => parseAllDocuments(text).length;

describe('countYamlDocuments', () => {
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
    'markers inside a list': '- name: a\n  goal: "---"\n- name: b\n',
    'Windows line ends': 'name: a\r\n---\r\nname: b\r\n...\r\nname: c\r\n',
    'a byte order mark before the first marker': '\ufeff---\nname: a\n',
    'no newline after the last marker': 'name: a\n---',
  };
  for (const [name, text] of Object.entries(wellFormed)) {
    it(`counts as the parser does: ${name}`, () => {
      assert.equal(countYamlDocuments(text), parsedDocuments(text));
    });
  }

  it('counts every document of a long file', () => {
    const text = Array.from({ length: 12_345 }, (_, i) => `name: m${i}`).join('\n---\n');
    assert.equal(countYamlDocuments(text), 12_345);
  });

  it('agrees with the parser on well-formed texts made of random lines, and is never lower on the others', () => {
    const lines = ['---', '--- # c', '--- |', '...', '... # c', 'name: a', '  goal: b', '- x', '# c', '', '%YAML 1.2', '\t', ' ---', '  ...',
      '----', 'k: |', '  text', 'k: "a', '  b"', 'k: [1,', '  2]', "'s", '? k', ': v'];
    let seed = 7;
    const pick = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    let wellFormed = 0;
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: 1 + pick(10) }, () => lines[pick(lines.length)]).join(pick(2) ? '\n' : '\r\n');
      const parsed = parseAllDocuments(text);
      const counted = countYamlDocuments(text);
      if (parsed.every((doc) => doc.errors.length === 0)) {
        wellFormed++;
        assert.equal(counted, parsed.length, JSON.stringify(text));
      } else assert.ok(counted >= parsed.length, JSON.stringify(text));
    }
    assert.ok(wellFormed > 500, `only ${wellFormed} well-formed texts`);
  });

  it('counts a marker that breaks a quoted scalar or a list, as the YAML rules forbid them there', () => {
    // Broken YAML: the parser reports the marker as an error and may count fewer documents. The
    // count is never lower than the parser's, so the limit cannot be slipped past this way.
    for (const text of ['goal: "a\n---\nb"\n', 'urls: [a,\n---\nb]\n', "goal: 'a\r\n--- x\r\nb'\r\n"]) {
      assert.ok(countYamlDocuments(text) >= parsedDocuments(text), JSON.stringify(text));
    }
    assert.equal(countYamlDocuments('goal: "a\n---\nb"\n'), 2);
  });
});
