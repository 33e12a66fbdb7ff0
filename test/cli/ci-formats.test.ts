/**
 * Output for CI: validation problems as GitHub Actions workflow commands and as SARIF 2.1.0
 * (checked against the SARIF schema), for validate and for apply/diff on invalid files.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { escapeCommandData, escapeCommandProperty, workflowCommand } from '../../src/ui/formats/workflow-commands.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';

const VALID = `name: Pricing
schedule: {cron: "0 * * * *"}
targets: [{type: scrape, urls: [https://example.com/pricing]}]
`;
// Line 3: a URL of the wrong scheme; line 4: a key whose name holds a newline and a percent sign.
const ODD = `name: Odd
schedule: {cron: "0 * * * *"}
targets: [{type: scrape, urls: ["ftp://example.com/100%"]}]
"line\\nbreak%": 1
`;
const ODD_FILE = 'monitors/odd, 100%.yaml';

/** The SARIF 2.1.0 schema (see test/fixtures/sarif/README.md), for ajv's draft-07 validator. */
function sarifValidator(): ((data: unknown) => boolean) & { errors?: unknown } {
  const schema = JSON.parse(readFileSync(new URL('../../../test/fixtures/sarif/sarif-2.1.0-rtm.5.json', import.meta.url), 'utf8'));
  // Written for JSON Schema draft-04, whose only difference here is the name of `id`.
  delete schema.$schema;
  schema.$id = schema.id;
  delete schema.id;
  // unicodeRegExp off: one pattern of this schema has a stray `]` that only the u flag refuses.
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  const isUri = (text: string) => URL.canParse(text);
  ajv.addFormat('uri', isUri);
  ajv.addFormat('uri-reference', (text: string) => URL.canParse(text, 'file:///base/') && !/\s/.test(text));
  ajv.addFormat('date-time', (text: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(text));
  return ajv.compile(schema);
}

describe('workflow commands', () => {
  it('escape % and newlines in messages, and : and , in properties, as GitHub requires', () => {
    assert.equal(escapeCommandData('100% done\r\nnext'), '100%25 done%0D%0Anext');
    assert.equal(escapeCommandProperty('a, b: 5%.yaml'), 'a%2C b%3A 5%25.yaml');
    assert.equal(
      workflowCommand('error', { file: 'm/a,b.yaml', line: 3, column: 7, title: 'x: y' }, 'two\nlines'),
      '::error file=m/a%2Cb.yaml,line=3,col=7,title=x%3A y::two%0Alines',
    );
    // Other control characters are shown as escapes, never passed to the log.
    assert.equal(escapeCommandData('a\u001b[31mb'), 'a\\x1b[31mb');
    assert.equal(workflowCommand('error', {}, 'no place'), '::error::no place');
  });
});

describe('monitor validate --format github', () => {
  it('on GitHub Actions, one ::error per problem on its file, line and column, named from the checkout', async () => {
    const dir = writeFiles({ [ODD_FILE]: ODD, 'monitors/ok.yaml': VALID });
    const result = await run(['monitor', 'validate', join(dir, 'monitors')], { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir } });
    assert.equal(result.code, 2);
    assert.deepEqual(result.stdout.split('\n'), [
      '::error file=monitors/odd%2C 100%25.yaml,line=3,col=33::targets[0].urls[0]: must use http or https, not ftp',
      '::error file=monitors/odd%2C 100%25.yaml,line=4,col=1::["line\\nbreak%25"]: unknown field "line%0Abreak%25"',
      '',
    ]);
    assert.equal(result.stderr, '✗ 2 errors in 1 of 2 files\n');
  });

  it('--format github elsewhere names files from the working directory; --format text and --json win on GitHub Actions', async () => {
    const dir = writeFiles({ [ODD_FILE]: ODD });
    const file = join(dir, ODD_FILE);
    const asked = await run(['monitor', 'validate', '--format', 'github', file], { cwd: dir });
    assert.match(asked.stdout, /^::error file=monitors\/odd%2C 100%25\.yaml,line=3,col=33::/);
    const env = { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir };
    const text = await run(['monitor', 'validate', '--format', 'text', file], { env });
    assert.match(text.stdout, /^\S+odd, 100%\.yaml:3:33 {2}targets\[0\]\.urls\[0\] {2}must use http or https, not ftp$/m);
    const json = await run(['monitor', 'validate', '--json', file], { env });
    assert.equal(JSON.parse(json.stdout).valid, false);
    // Outside the checkout, the path is absolute.
    const outside = await run(['monitor', 'validate', file], { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: tempDir() } });
    assert.match(outside.stdout, new RegExp(`^::error file=${dir.replace(/[/\\]/g, '.')}/monitors/odd%2C 100%25\\.yaml,line=3`));
  });

  it('standard input has no file: its place is in the message', async () => {
    const result = await run(['monitor', 'validate', '--format', 'github', '-'], {
      stdin: 'name: x\nschedule: {cron: "*/2 * * * *"}\ntargets: [{type: scrape, urls: [https://a.example]}]\n',
    });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '::error::<stdin>:2:18  schedule.cron  runs more often than every 5 minutes: it fires at 00:00 and 00:02, 2 minutes apart\n');
  });

  it('with --print the annotations go to stderr, the YAML stays on stdout', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID, [ODD_FILE]: ODD });
    const result = await run(['monitor', 'validate', '--print', dir], { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir } });
    assert.match(result.stdout, /^name: Pricing$/m);
    assert.doesNotMatch(result.stdout, /::error/);
    assert.match(result.stderr, /^::error file=monitors\/odd%2C 100%25\.yaml,line=3,col=33::/m);
  });

  it('refuses --format with --json, and --format sarif with --print (both write stdout)', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const both = await run(['monitor', 'validate', '--json', '--format', 'github', dir]);
    assert.equal(both.code, 2);
    assert.match(both.stdout, /give --format or --json, not both/);
    const print = await run(['monitor', 'validate', '--print', '--format', 'sarif', dir]);
    assert.equal(print.code, 2);
    assert.match(print.stderr, /--print and --format sarif both write to stdout/);
    const unknown = await run(['monitor', 'validate', '--format', 'junit', dir]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Allowed choices are text, github, sarif/);
  });
});

describe('monitor validate --format sarif', () => {
  const validate = sarifValidator();

  it('is a SARIF 2.1.0 log the schema accepts: one located result per problem, files relative to the checkout', async () => {
    const dir = writeFiles({ [ODD_FILE]: ODD, 'monitors/ok.yaml': VALID, 'monitors/dup.yaml': VALID, 'monitors/broken.yaml': 'name: [unclosed\n' });
    const result = await run(['monitor', 'validate', '--format', 'sarif', join(dir, 'monitors')], { env: { GITHUB_WORKSPACE: dir } });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /✗ \d+ errors in 3 of 4 files/);
    const log = JSON.parse(result.stdout);
    assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
    assert.equal(log.version, '2.1.0');
    const [runOf] = log.runs;
    assert.equal(runOf.tool.driver.name, 'webwatch');
    assert.equal(runOf.tool.driver.version, JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version);
    assert.deepEqual(runOf.originalUriBaseIds, { '%SRCROOT%': { uri: `${pathToFileURL(dir).href}/` } });
    const results = runOf.results as {
      ruleId: string;
      ruleIndex: number;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId: string }; region?: { startLine: number; startColumn: number } } }[];
      properties: Record<string, string>;
    }[];
    assert.ok(results.every((r) => runOf.tool.driver.rules[r.ruleIndex].id === r.ruleId));
    const broken = results.filter((r) => r.locations[0]!.physicalLocation.artifactLocation.uri === 'monitors/broken.yaml');
    assert.ok(broken.length > 0 && broken.every((r) => r.ruleId === 'invalid-definition-file' && /^YAML syntax: /.test(r.message.text)));
    const odd = results.filter((r) => r.locations[0]!.physicalLocation.artifactLocation.uri === 'monitors/odd%2C%20100%25.yaml');
    assert.deepEqual(
      odd.map((r) => ({ rule: r.ruleId, text: r.message.text, region: r.locations[0]!.physicalLocation.region, properties: r.properties })),
      [
        {
          rule: 'invalid-monitor',
          text: 'targets[0].urls[0]: must use http or https, not ftp',
          region: { startLine: 3, startColumn: 33 },
          properties: { field: 'targets[0].urls[0]', monitor: 'Odd' },
        },
        {
          rule: 'invalid-monitor',
          text: '["line\\nbreak%"]: unknown field "line\nbreak%"',
          region: { startLine: 4, startColumn: 1 },
          properties: { field: '["line\\nbreak%"]', monitor: 'Odd' },
        },
      ],
    );
    const duplicate = results.find((r) => r.properties.field === 'name');
    assert.match(duplicate!.message.text, /^name: duplicate monitor name "Pricing": already defined at /);
    assert.equal(duplicate!.locations[0]!.physicalLocation.artifactLocation.uri, 'monitors/ok.yaml');
  });

  it('valid files give a log with no results (exit 0), which code scanning reads as "all fixed"', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const result = await run(['monitor', 'validate', '--format', 'sarif', dir], { cwd: dir });
    assert.equal(result.code, 0);
    const log = JSON.parse(result.stdout);
    assert.ok(validate(log), JSON.stringify(validate.errors));
    assert.deepEqual(log.runs[0].results, []);
  });

  it('files outside the checkout get absolute file URIs; standard input no location; the schema accepts both', async () => {
    const dir = writeFiles({ [ODD_FILE]: ODD });
    const outside = JSON.parse((await run(['monitor', 'validate', '--format', 'sarif', join(dir, ODD_FILE)], { env: { GITHUB_WORKSPACE: tempDir() } })).stdout);
    assert.ok(validate(outside), JSON.stringify(validate.errors));
    const location = outside.runs[0].results[0].locations[0].physicalLocation.artifactLocation;
    assert.deepEqual(location, { uri: pathToFileURL(join(dir, ODD_FILE)).href });
    const stdin = JSON.parse((await run(['monitor', 'validate', '--format', 'sarif', '-'], { stdin: 'nope: 1\n' })).stdout);
    assert.ok(validate(stdin), JSON.stringify(validate.errors));
    assert.ok(stdin.runs[0].results.length > 0 && stdin.runs[0].results.every((r: object) => !('locations' in r)));
    assert.match(stdin.runs[0].results[0].message.text, /^<stdin>/);
  });

  it('the schema is really applied: a log without a version is refused', () => {
    assert.equal(validate({ runs: [] }), false);
    assert.equal(validate({ version: '2.1.0', runs: [{ tool: { driver: {} } }] }), false);
  });
});

describe('monitor apply and diff on invalid files', () => {
  it('on GitHub Actions, the problems are annotations on stderr and nothing is changed', async () => {
    const dir = writeFiles({ [ODD_FILE]: ODD, 'monitors/ok.yaml': VALID });
    const home = tempDir();
    const result = await run(['monitor', 'apply', '-f', join(dir, 'monitors')], {
      env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir, WEBWATCH_HOME: home },
    });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.deepEqual(result.stderr.split('\n'), [
      '::error file=monitors/odd%2C 100%25.yaml,line=3,col=33::targets[0].urls[0]: must use http or https, not ftp',
      '::error file=monitors/odd%2C 100%25.yaml,line=4,col=1::["line\\nbreak%25"]: unknown field "line%0Abreak%25"',
      'error: the monitor definitions are invalid; nothing was changed',
      '',
    ]);
    assert.equal(JSON.parse((await run(['monitor', 'list', '--json'], { env: { WEBWATCH_HOME: home } })).stdout).length, 0);
  });

  it('diff --format markdown says on stdout why there is no plan, each problem in a table row', async () => {
    const dir = writeFiles({ [ODD_FILE]: ODD });
    const result = await run(['monitor', 'diff', '-f', join(dir, 'monitors'), '--format', 'markdown'], { env: { GITHUB_WORKSPACE: dir } });
    assert.equal(result.code, 2);
    assert.equal(
      result.stdout.replaceAll(dir, '<dir>'),
      [
        '### webwatch: the monitor definitions are invalid',
        '',
        'There is no plan: 2 errors in 1 of 1 file.',
        '',
        '| file | line | field | problem |',
        '| --- | --- | --- | --- |',
        '| `<dir>/monitors/odd, 100%.yaml` | 3:33 | `targets[0].urls[0]` | must use http or https, not ftp |',
        '| `<dir>/monitors/odd, 100%.yaml` | 4:1 | `["line\\nbreak%"]` | unknown field "line break%" |',
        '',
      ].join('\n'),
    );
    // Off GitHub Actions, stderr has the plain located lines.
    assert.match(result.stderr, /odd, 100%\.yaml:3:33 {2}targets\[0\]\.urls\[0\] {2}must use http or https, not ftp/);
  });

  it('apply and diff refuse --format with --json', async () => {
    const dir = writeFiles({ 'ok.yaml': VALID });
    const result = await run(['monitor', 'diff', '-f', dir, '--json', '--format', 'markdown']);
    assert.equal(result.code, 2);
    assert.match(result.stdout, /give --format or --json, not both/);
  });
});
