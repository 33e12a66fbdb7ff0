/** The nesting guard: it stops at the same place as a depth check of the built value. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineCounter, parse } from 'yaml';
import { scanYaml } from '../../src/core/definitions/nesting.js';
import { parseDefinitionFile } from '../../src/core/definitions/parse.js';
import { MAX_JSON_DEPTH } from '../../src/spec/limits.js';
import { pathBeyondDepth } from '../../src/spec/depth.js';

/** Where the first item (a monitor) nests deeper than `max`, from the built value. */
function deepestByValue(text: string, max: number) {
  const value: unknown = parse(text);
  const items = Array.isArray(value) ? value : [value];
  for (const [index, item] of items.entries()) {
    const path = pathBeyondDepth(item, max);
    if (path) return Array.isArray(value) ? [index, ...path] : path;
  }
  return undefined;
}

describe('scanYaml', () => {
  const cases = [
    'a: [[[[x]]]]',
    'a: [b, c, [d, [e, [f]]]]',
    'a: {b: {c: {d: 1}}}',
    'a:\n  b:\n    c:\n      d: 1',
    '- x\n- a:\n    - - - 1',
    '- a: [1, {b: [2, 3, [4]]}]',
    '[{a: {b: {c: 1}}}]',
    'a:\n  - 1\n  - b: {c: [1, 2, [3]]}',
    'a: [{x: [y, [z]]}]',
    'k: 1\nz:\n  - [1]\n  - [2, [3, [4]]]',
    'a: {b: [1, 2]}\nc: {d: 1}',
  ];
  for (const text of cases) {
    it(`finds the same path as the built value: ${JSON.stringify(text)}`, () => {
      const scanned = scanYaml(text, new LineCounter(), 3);
      assert.deepEqual(scanned.ok ? undefined : scanned.path, deepestByValue(text, 3));
    });
  }

  it('points at the collection that opens too deep', () => {
    const text = 'a: {b: {c: {d: 1}}}\n';
    const scanned = scanYaml(text, new LineCounter(), 3);
    assert.ok(!scanned.ok);
    assert.equal(text.slice(scanned.offset), '{d: 1}}}\n');
  });

  it('stops at the limit however deep the file goes', () => {
    const levels = 1_000_000;
    const scanned = scanYaml(`a: ${'['.repeat(levels)}${']'.repeat(levels)}\n`, new LineCounter(), 64);
    assert.ok(!scanned.ok);
    assert.equal(scanned.path.length, 64);
  });
});

describe('parseDefinitionFile', () => {
  it('also counts the mappings that pairs in flow sequences make, which the scan does not', () => {
    // `[x: …]` is a list holding the mapping {x: …}: 40 of them nest 80 levels in 40 brackets.
    const text = `name: a\nm: ${'[x: '.repeat(40)}1${']'.repeat(40)}\n`;
    assert.ok(scanYaml(text, new LineCounter(), MAX_JSON_DEPTH).ok);
    const [monitor] = parseDefinitionFile(text, {}).monitors;
    const [problem] = monitor!.problems;
    assert.match(problem!.message, /^nested more than 64 levels deep/);
    // m is at depth 2, each [0].x adds two levels: the 31st reaches 64, its [0] is 65.
    assert.deepEqual(problem!.path, ['m', ...Array.from({ length: 31 }, () => [0, 'x']).flat(), 0]);
  });
});

describe('pathBeyondDepth', () => {
  it('counts the top-level value as depth 1 and scalars not at all', () => {
    assert.equal(pathBeyondDepth({ a: 1 }, 1), undefined);
    assert.deepEqual(pathBeyondDepth({ a: { b: 1 } }, 1), ['a']);
    assert.equal(pathBeyondDepth([[['x']]], 3), undefined);
    assert.deepEqual(pathBeyondDepth([1, [2, [3]]], 2), [1, 1]);
    assert.equal(pathBeyondDepth('text', 0), undefined);
  });

  it('answers for a value far deeper than the call stack allows', () => {
    let value: unknown = 1;
    for (let i = 0; i < 200_000; i++) value = [value];
    assert.equal(pathBeyondDepth(value, 64)?.length, 64);
  });
});
