/** Definition files: document forms, positions, YAML syntax errors, interpolation typing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseDefinitionFile } from '../../src/core/definitions/parse.js';
import { DEFINITION_FILE_MAX_MONITORS } from '../../src/spec/limits.js';

describe('definition file parsing', () => {
  it('reads one mapping, a list, and several documents', () => {
    assert.equal(parseDefinitionFile('name: a\n', {}).monitors.length, 1);
    assert.equal(parseDefinitionFile('- name: a\n- name: b\n', {}).monitors.length, 2);
    const multi = parseDefinitionFile('name: a\n---\n- name: b\n- name: c\n---\n', {});
    assert.deepEqual(
      multi.monitors.map((m) => (m.value as { name: string }).name),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      multi.monitors.map((m) => m.position.line),
      [1, 3, 4],
    );
  });

  it('locates fields by path, and keys for unknown fields', () => {
    const text = 'name: a\ntargets:\n  - type: scrape\n    scrapeOptions:\n      timeout: 5\n';
    const [monitor] = parseDefinitionFile(text, {}).monitors;
    assert.deepEqual(monitor!.locate(['targets', 0, 'scrapeOptions', 'timeout'], false), { line: 5, column: 16 });
    assert.deepEqual(monitor!.locate(['targets', 0, 'scrapeOptions', 'timeout'], true), { line: 5, column: 7 });
    // A missing field points at the deepest part that exists.
    assert.deepEqual(monitor!.locate(['targets', 0, 'urls'], false), { line: 3, column: 5 });
  });

  it('reports YAML syntax errors with line and column', () => {
    const parsed = parseDefinitionFile('name: a\ntargets: [\n  - b\n', {});
    assert.equal(parsed.monitors.length, 0);
    assert.ok(parsed.problems.length > 0);
    assert.ok(parsed.problems.every((p) => p.message.startsWith('YAML syntax: ') && typeof p.line === 'number'));
    const duplicate = parseDefinitionFile('name: a\nname: b\n', {});
    assert.deepEqual(
      duplicate.problems.map((p) => [p.line, p.column]),
      [[2, 1]],
    );
    assert.match(duplicate.problems[0]!.message, /Map keys must be unique/);
  });

  it("reports keys repeated in a mapping where the YAML library's own check does", () => {
    // The library's check is quadratic in the keys of a mapping; parsing finds them itself.
    const texts = [
      'a: 1\na: 2\n',
      '{a: 1, a: 2}',
      'a: 1\n"a": 2\na: 3\n',
      '1: a\n1.0: b\n0x1: c\n',
      'true: a\nTrue: b\n',
      '.nan: a\n.nan: b\n',
      '~: a\nnull: b\n',
      ': a\n: b\n',
      'x: &a {k: 1}\ny:\n  <<: *a\n  <<: *a\n  k: 2\n',
      '[a: 1, a: 2]',
      '? [a]\n: 1\n? [a]\n: 2\n',
      'a: 1\n&x a: 2\n!!str a: 3\n',
      '"1": a\n1: b\n',
      '-0: a\n0: b\n',
      'a: {b: 1, b: 2}\nc:\n  - d: 1\n    d: 2\n',
    ];
    for (const text of texts) {
      const expected = parseAllDocuments(text, { merge: true })
        .flatMap((doc) => doc.errors.filter((error) => error.code === 'DUPLICATE_KEY'))
        .map((error) => ({ line: error.linePos![0].line, column: error.linePos![0].col, message: 'YAML syntax: Map keys must be unique' }));
      const found = parseDefinitionFile(text, {})
        .problems.filter((p) => p.message.includes('unique'))
        .map(({ line, column, message }) => ({ line, column, message }));
      assert.deepEqual(found, expected, JSON.stringify(text));
    }
  });

  it('locates the first of keys that a path names alike, and the place of a problem among equal items', () => {
    // Small collections are searched, larger ones indexed: both ways are taken here.
    for (const count of [3, 40]) {
      const keys = Array.from({ length: count }, (_, i) => `k${i}: 1\n`).join('');
      const items = Array.from({ length: count }, (_, i) => (i === count - 2 ? '{x: "${UNSET}"}' : '{x: 1}')).join(', ');
      const [monitor] = parseDefinitionFile(`name: a\n1: x\n"1": y\n${keys}t: [${items}]\n`, {}).monitors;
      const line = count + 4;
      assert.deepEqual(monitor!.locate([1], true), { line: 2, column: 1 });
      assert.deepEqual(monitor!.locate([`k${count - 1}`], true), { line: count + 3, column: 1 });
      assert.deepEqual(monitor!.locate(['t', count - 1, 'x'], false), { line, column: 5 + 8 * (count - 2) + 17 + 4 });
      assert.deepEqual(
        monitor!.problems.map(({ path, line, column }) => ({ path, line, column })),
        [{ path: ['t', count - 2, 'x'], line, column: 5 + 8 * (count - 2) + 4 }],
      );
    }
  });

  it('reports every syntax error of a file of many, and leaves Error.stackTraceLimit as it found it', () => {
    const before = Error.stackTraceLimit;
    const parsed = parseDefinitionFile(`a: [${','.repeat(1000)}]\n`, {});
    assert.equal(parsed.problems.length, 1000);
    assert.ok(parsed.problems.every((p) => p.message === 'YAML syntax: Unexpected , in flow sequence'));
    assert.equal(Error.stackTraceLimit, before);
  });

  it('refuses a scalar document', () => {
    const parsed = parseDefinitionFile('just text\n', {});
    assert.match(parsed.problems[0]!.message, /holds a monitor \(a mapping of fields\) or a list of monitors/);
  });

  it('types an unquoted interpolated value as if written there, keeps quoted ones text', () => {
    const text = 'retentionDays: ${DAYS}\nname: "${DAYS}"\njudgeEnabled: ${JUDGE:-false}\ngoal: ${GOAL}\n';
    const [monitor] = parseDefinitionFile(text, { DAYS: '30', GOAL: 'a: b' }).monitors;
    assert.deepEqual(monitor!.value, { retentionDays: 30, name: '30', judgeEnabled: false, goal: 'a: b' });
  });

  it('reports an unset variable at its place with its path', () => {
    const text = 'name: a\nwebhook:\n  url: https://h.example.com\n  headers:\n    Authorization: Bearer ${HOOK_TOKEN}\n';
    const [monitor] = parseDefinitionFile(text, {}).monitors;
    assert.deepEqual(monitor!.problems, [
      {
        path: ['webhook', 'headers', 'Authorization'],
        line: 5,
        column: 20,
        message: 'environment variable HOOK_TOKEN is not set (write ${HOOK_TOKEN:-default} to give a default)',
      },
    ]);
  });

  it('names the index of an unset variable in an item of a list', () => {
    const text = 'name: a\ntargets:\n  - type: scrape\n    urls: [https://a.example, "https://${HOST}/b"]\n';
    const [monitor] = parseDefinitionFile(text, {}).monitors;
    assert.deepEqual(
      monitor!.problems.map(({ path, line, column }) => ({ path, line, column })),
      [{ path: ['targets', 0, 'urls', 1], line: 4, column: 31 }],
    );
  });

  it('resolves anchors and merge keys, and stops alias bombs', () => {
    const text = 'base: &opts {timeout: 5000}\nname: a\nextra:\n  <<: *opts\n  mobile: true\n';
    const [monitor] = parseDefinitionFile(text, {}).monitors;
    assert.deepEqual((monitor!.value as { extra: unknown }).extra, { timeout: 5000, mobile: true });
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      bomb.push(
        `${'abcdefghij'[i]}: &${'abcdefghij'[i]} [${Array(9)
          .fill(`*${'abcdefghij'[i - 1]}`)
          .join(', ')}]`,
      );
    const parsed = parseDefinitionFile(`${bomb.join('\n')}\n`, {});
    assert.equal(parsed.monitors.length, 0);
    assert.match(parsed.problems[0]!.message, /alias/i);
  });

  it('bounds what aliases expand to, not how many there are: a short list of aliases of a long list is refused at the alias', () => {
    // 99 targets that alias one list of 20,000 addresses: 2 million values from a file of 600 kB.
    const urls = Array.from({ length: 20_000 }, (_, i) => `https://example.com/${i}`).join(', ');
    const targets = Array.from({ length: 99 }, () => '    - {type: scrape, urls: *a}').join('\n');
    const text = `x-urls: &a [${urls}]\nname: Many\nschedule: {cron: "0 * * * *"}\ntargets:\n${targets}\n`;
    const parsed = parseDefinitionFile(text, {});
    assert.equal(parsed.monitors.length, 0);
    assert.equal(parsed.problems.length, 1);
    const [problem] = parsed.problems;
    assert.match(problem!.message, /^YAML aliases expand this document to 2,000,\d{3} values from the 20,\d{3} written: at most 100,000 more are allowed/);
    // At the alias that repeats the most: the first target's.
    assert.deepEqual([problem!.line, problem!.column], [5, 28]);
    // Aliases of small parts, as people use them, stay welcome.
    const shared = Array.from(
      { length: 200 },
      (_, i) => `- {name: m${i}, schedule: {cron: "0 * * * *"}, targets: [{type: scrape, urls: ["https://example.com/${i}"], scrapeOptions: *opts}]}`,
    ).join('\n');
    const fine = parseDefinitionFile(
      `- &first {name: m, schedule: {cron: "0 * * * *"}, targets: [{type: scrape, urls: ["https://example.com/"], scrapeOptions: &opts {onlyMainContent: false, timeout: 5000, excludeTags: [nav, footer]}}]}\n${shared}\n`,
      {},
    );
    assert.deepEqual(fine.problems, []);
    assert.equal(fine.monitors.length, 201);
  });
});

describe('monitors per definition file', () => {
  const MAX = DEFINITION_FILE_MAX_MONITORS;
  const documents = (count: number, text: string) => Array.from({ length: count }, () => text).join('\n---\n');
  const list = (count: number, item: string) => `- ${item}\n`.repeat(count);
  const refused = (count: number) => [
    {
      path: [],
      line: null,
      column: null,
      message: `the file holds ${count} monitors (as documents or list items), over the limit of ${MAX} in a definition file: split it into several files`,
    },
  ];

  it('reads a file of exactly the limit, as documents, as a list, or both', () => {
    for (const text of [documents(MAX, '{}'), list(MAX, '{}'), `[${'{}, '.repeat(MAX)}]`, `${documents(MAX / 2, '{}')}\n---\n${list(MAX / 2, '{}')}`]) {
      const parsed = parseDefinitionFile(text, {});
      assert.equal(parsed.monitors.length, MAX);
      assert.deepEqual(parsed.problems, []);
    }
  });

  it('refuses one document more with one problem of the file, before parsing any of them', () => {
    // Every document is a syntax error: any of them parsed would add a problem of its own.
    const parsed = parseDefinitionFile(documents(MAX + 1, 'a: b: c'), {});
    assert.equal(parsed.monitors.length, 0);
    assert.deepEqual(parsed.problems, refused(MAX + 1));
  });

  it('refuses a list of one item more, in a block or in brackets, before parsing any item', () => {
    for (const text of [list(MAX + 1, 'a: b: c'), `[${'{a: b: c}, '.repeat(MAX + 1)}]`, `  - a: b: c\n${list(MAX, 'a: b: c')}`]) {
      const parsed = parseDefinitionFile(text, {});
      assert.equal(parsed.monitors.length, 0);
      assert.deepEqual(parsed.problems, refused(MAX + 1));
    }
  });

  it('counts documents and list items of one file together', () => {
    const half = MAX / 2;
    const text = `name: a\n---\n${list(half, '{name: b}')}---\n[${'{name: c}, '.repeat(half)}]\n`;
    const parsed = parseDefinitionFile(text, {});
    assert.equal(parsed.monitors.length, 0);
    assert.deepEqual(parsed.problems, refused(1 + half + half));
  });

  it('counts again as the parser delimits items when broken YAML hides some from the count of lines', () => {
    // After a comment line the parser takes ` - y` into the root list as an item of its own:
    // twice as many items as the lines show, and every one of them would be built.
    const hidden = '- b\n#\n - y\n'.repeat(MAX / 2 + 1);
    const parsed = parseDefinitionFile(hidden, {});
    assert.equal(parsed.monitors.length, 0);
    assert.deepEqual(parsed.problems, refused(MAX + 2));
  });
});
