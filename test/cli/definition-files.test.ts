/**
 * What `monitor validate` and `monitor apply` refuse to read, and how they say so: special
 * files, invalid UTF-8, files over the size limit or the limit of monitors, nesting beyond the
 * depth limit.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFINITION_FILE_MAX_BYTES, DEFINITION_FILE_MAX_MONITORS, MAX_JSON_DEPTH } from '../../src/spec/limits.js';
import { run, type Captured } from '../helpers/io.js';
import { tempDir, writeFiles } from '../helpers/files.js';

const VALID = `name: Pricing
schedule: {cron: "0 * * * *"}
targets:
  - type: scrape
    urls: [https://example.com/pricing]
`;

function mkfifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

/**
 * Runs webwatch and fails the test when it has not returned within `seconds`. A reader left
 * blocked on a FIFO is released afterwards by opening the FIFO for writing, so that a failing
 * test ends instead of holding the test process open.
 */
async function runPromptly(argv: string[], fifos: string[], seconds = 5): Promise<Captured> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`webwatch ${argv.join(' ')} did not return within ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([run(argv), timeout]);
  } finally {
    clearTimeout(timer);
    for (const fifo of fifos) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody is reading it, which is what should happen.
      }
    }
  }
}

describe('special files', () => {
  it('refuses a FIFO given by name at once, exit 2, without opening it', async () => {
    const fifo = mkfifo(join(tempDir(), 'monitor.yaml'));
    const result = await runPromptly(['monitor', 'validate', fifo], [fifo]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, `${fifo}  not a regular file (a FIFO)\n`);
  });

  it('reports a FIFO named *.yaml inside a directory as an error of that path, and reads the rest', async () => {
    const dir = writeFiles({ 'a.yaml': VALID });
    const fifo = mkfifo(join(dir, 'b.yaml'));
    const result = await runPromptly(['monitor', 'validate', '--json', dir], [fifo]);
    assert.equal(result.code, 2);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(
      report.files.map((f: { file: string }) => f.file),
      [join(dir, 'a.yaml'), fifo],
    );
    assert.equal(report.files[0].monitors[0].valid, true);
    assert.match(report.files[1].errors[0].message, /^not a regular file \(a FIFO\)/);
  });

  it("reads a directory's files in an order of their names that is the same on every machine", async () => {
    const named = (name: string) => VALID.replace('name: Pricing', `name: ${name}`);
    const dir = writeFiles({ 'c.yml': named('C'), 'B.yaml': named('B'), 'a.yaml': named('A') });
    const result = await run(['monitor', 'validate', '--json', dir]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(
      report.files.map((f: { file: string }) => f.file),
      ['a.yaml', 'B.yaml', 'c.yml'].map((name) => join(dir, name)),
    );
  });

  it('apply refuses a FIFO the same way and changes nothing', async () => {
    const fifo = mkfifo(join(tempDir(), 'monitor.yaml'));
    const result = await runPromptly(['monitor', 'apply', '-f', fifo], [fifo]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /monitor\.yaml {2}not a regular file \(a FIFO\)/);
    assert.match(result.stderr, /nothing was changed/);
  });

  it('scrape --options reads its file with the same checks', async () => {
    const fifo = mkfifo(join(tempDir(), 'options.yaml'));
    const result = await runPromptly(['scrape', 'http://127.0.0.1:9/', '--options', fifo], [fifo]);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, `error: invalid scrape options:\n${fifo}  not a regular file (a FIFO)\n`);
  });

  it('refuses a character device', async () => {
    const result = await runPromptly(['monitor', 'validate', '/dev/null'], []);
    assert.equal(result.code, 2);
    assert.match(result.stdout, /^\/dev\/null {2}not a regular file \(a character device\)/);
  });

  it('still reads standard input for -', async () => {
    const result = await run(['monitor', 'validate', '-'], { stdin: VALID });
    assert.equal(result.code, 0);
  });
});

describe('invalid UTF-8', () => {
  // "Café" in Latin-1: the é is the single byte E9, not valid UTF-8.
  const LATIN1 = Buffer.concat([Buffer.from(VALID.replace('Pricing', 'Caf')), Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\n')]);

  it('is an error with the byte offset, line and column, exit 2', async () => {
    const file = join(tempDir(), 'latin1.yaml');
    writeFileSync(file, LATIN1);
    const offset = LATIN1.indexOf(0xe9);
    const result = await run(['monitor', 'validate', '--json', file]);
    assert.equal(result.code, 2);
    assert.deepEqual(JSON.parse(result.stdout).files[0].errors, [
      { path: '', line: 6, column: 6, message: `invalid UTF-8 at byte ${offset} (line 6, column 6)` },
    ]);
    const human = await run(['monitor', 'validate', file]);
    assert.equal(human.stdout, `${file}:6:6  invalid UTF-8 at byte ${offset} (line 6, column 6)\n`);
  });

  it('is checked on standard input too', async () => {
    const result = await run(['monitor', 'validate', '-'], { stdin: LATIN1 });
    assert.equal(result.code, 2);
    assert.match(result.stdout, /^<stdin>:6:6 {2}invalid UTF-8 at byte \d+ \(line 6, column 6\)\n$/);
  });

  it('accepts a UTF-8 byte order mark', async () => {
    const result = await run(['monitor', 'validate', '-'], { stdin: `\ufeff${VALID}` });
    assert.equal(result.code, 0);
  });
});

describe('file size limit', () => {
  /** A valid definition padded with a comment to exactly `bytes` bytes. */
  const padded = (bytes: number) => `${VALID}#${'x'.repeat(bytes - VALID.length - 2)}\n`;

  it('accepts a file of exactly the limit and refuses one byte more', async () => {
    const dir = writeFiles({ 'at.yaml': padded(DEFINITION_FILE_MAX_BYTES), 'over.yaml': padded(DEFINITION_FILE_MAX_BYTES + 1) });
    const at = await run(['monitor', 'validate', join(dir, 'at.yaml')]);
    assert.equal(at.code, 0, at.stdout);
    const over = await run(['monitor', 'validate', join(dir, 'over.yaml')]);
    assert.equal(over.code, 2);
    assert.equal(over.stdout, `${join(dir, 'over.yaml')}  the file is 8.1 MiB, over the 8 MiB limit of a definition file\n`);
  });

  it('refuses a large file by its size, without reading it', async () => {
    // Sparse: 52.4 MiB long, of which only the definition was written.
    const file = join(tempDir(), 'huge.yaml');
    writeFileSync(file, VALID);
    truncateSync(file, Math.round(52.4 * 1024 * 1024));
    const result = await run(['monitor', 'validate', '--json', file]);
    assert.equal(result.code, 2);
    assert.deepEqual(JSON.parse(result.stdout).files[0].errors, [
      { path: '', line: null, column: null, message: 'the file is 52.4 MiB, over the 8 MiB limit of a definition file' },
    ]);
  });

  it('applies to standard input', async () => {
    const result = await run(['monitor', 'apply', '-f', '-'], { stdin: padded(DEFINITION_FILE_MAX_BYTES + 1) });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^<stdin> {2}standard input is over the 8 MiB limit of a definition file\n/);
  });
});

describe('monitors per file', () => {
  const monitor = (i: number) => `name: m${i}\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/${i}"]}]`;
  /** `count` valid monitors, one per `---` document, each with its own name. */
  const documents = (count: number, from = 0) => Array.from({ length: count }, (_, i) => monitor(from + i)).join('\n---\n');
  /** `count` valid monitors as the items of one list. */
  const list = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `- ${monitor(from + i).replaceAll('\n', '\n  ')}\n`).join('');
  const MAX = DEFINITION_FILE_MAX_MONITORS;
  const over = MAX + 1;
  const refused = (count: number) =>
    `the file holds ${count} monitors (as documents or list items), over the limit of ${MAX} in a definition file: split it into several files`;

  it('accepts a file of exactly the limit and refuses one document more, naming the count and the limit, exit 2', async () => {
    const dir = writeFiles({ 'at.yaml': documents(MAX), 'over.yaml': documents(over) });
    const at = await run(['monitor', 'validate', join(dir, 'at.yaml')]);
    assert.equal(at.code, 0, at.stdout.slice(0, 500));
    const result = await run(['monitor', 'validate', join(dir, 'over.yaml')]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, `${join(dir, 'over.yaml')}  ${refused(over)}\n`);
    const json = await run(['monitor', 'validate', '--json', join(dir, 'over.yaml')]);
    assert.equal(json.code, 2);
    assert.deepEqual(JSON.parse(json.stdout).files, [
      { file: join(dir, 'over.yaml'), monitors: [], errors: [{ path: '', line: null, column: null, message: refused(over) }] },
    ]);
  });

  it('accepts a list of exactly the limit and refuses one item more with one error, before any item is checked', async () => {
    // Each item lacks its schedule: one checked would print an error of its own.
    const unscheduled = Array.from({ length: over }, (_, i) => `- name: m${i}\n  targets: [{type: scrape, urls: ["https://example.com/${i}"]}]\n`).join('');
    const dir = writeFiles({
      'at.yaml': list(MAX),
      'over.yaml': unscheduled,
      'flow.yaml': `[${Array.from({ length: over }, (_, i) => `{name: m${i}}`).join(', ')}]\n`,
    });
    const at = await run(['monitor', 'validate', '--json', join(dir, 'at.yaml')]);
    assert.equal(at.code, 0, at.stdout.slice(0, 500));
    assert.equal(JSON.parse(at.stdout).files[0].monitors.length, MAX);
    for (const name of ['over.yaml', 'flow.yaml']) {
      const result = await run(['monitor', 'validate', join(dir, name)]);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, `${join(dir, name)}  ${refused(over)}\n`);
    }
  });

  it('counts documents and the items of lists in one file together', async () => {
    const half = MAX / 2;
    const mixed = `${documents(half)}\n---\n${list(half - 1, half)}---\n[{name: last, schedule: {cron: "0 * * * *"}, targets: [{type: scrape, urls: ["https://example.com/last"]}]}]\n`;
    const dir = writeFiles({ 'at.yaml': mixed, 'over.yaml': `${mixed}---\n${monitor(over)}\n` });
    const at = await run(['monitor', 'validate', join(dir, 'at.yaml')]);
    assert.equal(at.code, 0, at.stdout.slice(0, 500));
    const result = await run(['monitor', 'validate', join(dir, 'over.yaml')]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, `${join(dir, 'over.yaml')}  ${refused(over)}\n`);
  });

  it('applies to standard input, as documents or as a list, and apply changes nothing', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    for (const stdin of [documents(over), list(over)]) {
      const result = await run(['monitor', 'apply', '-f', '-', '--yes'], { stdin, env });
      assert.equal(result.code, 2);
      assert.ok(result.stderr.startsWith(`<stdin>  ${refused(over)}\n`), result.stderr.slice(0, 500));
      assert.match(result.stderr, /nothing was changed/);
    }
    const listed = await run(['monitor', 'list', '--json'], { env });
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });
});

describe('nesting depth', () => {
  const TOO_DEEP = `nested more than ${MAX_JSON_DEPTH} levels deep (mappings and lists; the monitor itself is level 1)`;
  /** VALID with webhook metadata holding `lists` nested lists: the innermost is at depth 3 + lists. */
  const withMetadata = (lists: number) => `${VALID}webhook:\n  url: https://hooks.example.com/x\n  metadata: {a: ${'['.repeat(lists)}1${']'.repeat(lists)}}\n`;
  const limitLists = MAX_JSON_DEPTH - 3;

  it('accepts a monitor exactly at the limit, alone or in a list, and refuses one level more', async () => {
    const atLimit = withMetadata(limitLists);
    const inList = `- ${atLimit.trimEnd().replaceAll('\n', '\n  ')}\n`;
    const dir = writeFiles({ 'at.yaml': atLimit, 'list.yaml': inList, 'over.yaml': withMetadata(limitLists + 1) });
    assert.equal((await run(['monitor', 'validate', join(dir, 'at.yaml')])).code, 0);
    assert.equal((await run(['monitor', 'validate', join(dir, 'list.yaml')])).code, 0);
    const over = await run(['monitor', 'validate', '--json', join(dir, 'over.yaml')]);
    assert.equal(over.code, 2);
    const [error] = JSON.parse(over.stdout).files[0].errors;
    assert.equal(error.message, TOO_DEEP);
    assert.equal(error.path, `webhook.metadata.a${'[0]'.repeat(limitLists)}`);
    assert.equal(error.line, 8);
  });

  it('reports 5,000 nested levels with their path instead of overflowing the stack', async () => {
    const levels = 5000;
    const flow = `${VALID}webhook:\n  url: https://hooks.example.com/x\n  metadata: ${'['.repeat(levels)}${']'.repeat(levels)}\n`;
    const block = `${VALID}webhook:\n  url: https://hooks.example.com/x\n  metadata:\n    a:\n      ${'- '.repeat(levels)}1\n`;
    const dir = writeFiles({ 'flow.yaml': flow, 'block.yaml': block });
    const result = await run(['monitor', 'validate', join(dir, 'block.yaml'), join(dir, 'flow.yaml')]);
    assert.equal(result.code, 2);
    assert.doesNotMatch(result.stdout, /call stack/);
    const lines = result.stdout.replaceAll(dir, '<dir>').trimEnd().split('\n');
    assert.deepEqual(lines, [
      // The list at depth 65, where it opens: the 62nd "- ", the 63rd "[".
      `<dir>/block.yaml:10:${7 + 2 * limitLists}  webhook.metadata.a${'[0]'.repeat(limitLists)}  ${TOO_DEEP}`,
      `<dir>/flow.yaml:8:${13 + limitLists + 1}  webhook.metadata${'[0]'.repeat(limitLists + 1)}  ${TOO_DEEP}`,
    ]);
  });

  it('counts what aliases nest, too', async () => {
    const half = Math.ceil(MAX_JSON_DEPTH / 2);
    const text = `${VALID}webhook:\n  url: https://hooks.example.com/x\n  metadata:\n    base: &deep ${'['.repeat(half)}1${']'.repeat(half)}\n    more: ${'['.repeat(half)}*deep${']'.repeat(half)}\n`;
    const result = await run(['monitor', 'validate', '-'], { stdin: text });
    assert.equal(result.code, 2);
    assert.match(result.stdout, new RegExp(`^<stdin>:10:\\d+  webhook\\.metadata\\.more(\\[0\\])+  nested more than ${MAX_JSON_DEPTH} levels deep`));
  });
});
