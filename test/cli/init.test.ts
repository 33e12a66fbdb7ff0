/** `webwatch init`: a starter monitor file that validates as written, and is never written over. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';

describe('webwatch init', () => {
  it('writes a file of each kind that validates as written, with the other kinds as comments', async () => {
    const cwd = tempDir();
    const env = { WEBWATCH_HOME: tempDir() };
    for (const type of ['scrape', 'crawl', 'search']) {
      const result = await run(['init', `monitors/${type}.yaml`, '--type', type], { cwd, env });
      assert.equal(result.code, 0, result.stderr);
      const text = readFileSync(join(cwd, 'monitors', `${type}.yaml`), 'utf8');
      assert.match(text, /^# yaml-language-server: \$schema=\.\/webwatch-monitor\.schema\.json\n/);
      assert.match(text, new RegExp(`^  - type: ${type} `, 'm'), 'the chosen kind is the live target');
      for (const other of ['scrape', 'crawl', 'search'].filter((kind) => kind !== type)) {
        assert.match(text, new RegExp(`^#  - type: ${other} `, 'm'), `${other} is shown as a comment`);
      }
      assert.match(text, new RegExp(`^name: "${type}"$`, 'm'), 'named after its file');
      // A search target's results are judged against the goal: it is live there only.
      assert.match(text, type === 'search' ? /^goal: /m : /^# goal: /m);
    }
    const validated = await run(['monitor', 'validate', join(cwd, 'monitors'), '--json'], { cwd, env });
    assert.equal(validated.code, 0, validated.stdout);
    const report = JSON.parse(validated.stdout);
    assert.deepEqual(
      report.files.flatMap((file: { monitors: { name: string; valid: boolean }[] }) => file.monitors.map((m) => [m.name, m.valid])),
      [
        ['crawl', true],
        ['scrape', true],
        ['search', true],
      ],
    );
    // The schema its first line points at, written once beside the files.
    const schema = JSON.parse(readFileSync(join(cwd, 'monitors', 'webwatch-monitor.schema.json'), 'utf8'));
    assert.deepEqual(schema, JSON.parse((await run(['schema', 'monitor'], { env })).stdout));
    // And the starter goes all the way: applied on the local engine as it is.
    const applied = await run(['monitor', 'apply', join(cwd, 'monitors', 'scrape.yaml'), '--json'], { cwd, env });
    assert.deepEqual(JSON.parse(applied.stdout).summary, { created: 1, updated: 0, unchanged: 0, deleted: 0 });
  });

  it('says what it wrote and what to run next; --url and --name fill the file', async () => {
    const cwd = tempDir();
    const result = await run(['init', '--type', 'crawl', '--url', 'https://docs.example.org/guide/', '--name', 'Guide "v2"'], { cwd });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'wrote monitor.yaml and webwatch-monitor.schema.json (for editors): a crawl monitor to edit\nnext: webwatch monitor validate monitor.yaml && webwatch monitor apply monitor.yaml\n',
    );
    const text = readFileSync(join(cwd, 'monitor.yaml'), 'utf8');
    assert.match(text, /^ {4}url: https:\/\/docs\.example\.org\/guide\/$/m);
    assert.match(text, /^name: "Guide \\"v2\\""$/m);
    const json = await run(['init', 'second.yaml', '--json'], { cwd });
    assert.deepEqual(JSON.parse(json.stdout), { file: 'second.yaml', schema: 'webwatch-monitor.schema.json', schemaWritten: false });
  });

  it('never overwrites: an existing file is a conflict (exit 5) and stays as it was', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'monitor.yaml'), 'mine\n');
    const result = await run(['init'], { cwd });
    assert.equal(result.code, 5);
    assert.equal(
      result.stderr,
      'error: monitor.yaml exists: init never overwrites a file\nhint: give another name (webwatch init new-monitor.yaml), or edit the file you have\n',
    );
    assert.equal(readFileSync(join(cwd, 'monitor.yaml'), 'utf8'), 'mine\n');
    assert.equal(existsSync(join(cwd, 'webwatch-monitor.schema.json')), false, 'nothing else written either');
    const json = await run(['init', '--json'], { cwd });
    assert.equal(JSON.parse(json.stdout).code, 'FILE_EXISTS');
  });

  it('- prints the file instead; bad flags are usage errors that write nothing', async () => {
    const cwd = tempDir();
    const printed = await run(['init', '-', '--type', 'search'], { cwd });
    assert.equal(printed.code, 0);
    assert.match(printed.stdout, /^ {2}- type: search /m);
    assert.match(printed.stdout, /^name: "My monitor"$/m);
    for (const args of [
      ['--type', 'search', '--url', 'https://example.com/'],
      ['--url', 'example.com'],
      ['--type', 'rss'],
    ]) {
      const result = await run(['init', ...args], { cwd });
      assert.equal(result.code, 2, args.join(' '));
    }
    assert.match((await run(['init', '--url', 'example.com'], { cwd })).stderr, /--url example\.com: must be an absolute URL/);
    assert.equal(existsSync(join(cwd, 'monitor.yaml')), false);
  });
});
