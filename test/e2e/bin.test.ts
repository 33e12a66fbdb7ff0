/** End to end: bin/webwatch.js as a user runs it, asserting stdout, stderr and exit code. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { startServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'webwatch.js');

function webwatch(args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    input: options.input ?? '',
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...options.env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('bin/webwatch.js', () => {
  it('--version prints the version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    assert.deepEqual(webwatch(['--version']), { code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('reads the project configuration in each of its formats, JavaScript modules included', () => {
    // Where the wrong value is, in the files whose text has places (YAML and JSON, not JavaScript).
    const AT: Record<string, string> = {
      'package.json': ':1:44',
      '.webwatchrc': ':2:9',
      '.webwatchrc.json': ':1:18',
      '.webwatchrc.yml': ':1:15',
      '.config/webwatchrc.yaml': ':1:15',
    };
    // A port out of range makes the file's contents show in the error: it was found and read.
    const settings = { serve: { port: 99999 } };
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: 'site', webwatch: settings }),
      '.webwatchrc': 'serve:\n  port: 99999\n',
      '.webwatchrc.json': JSON.stringify(settings),
      '.webwatchrc.yml': 'serve: {port: 99999}\n',
      '.config/webwatchrc.yaml': 'serve: {port: 99999}\n',
      'webwatch.config.cjs': `module.exports = ${JSON.stringify(settings)};\n`,
      'webwatch.config.mjs': `export default ${JSON.stringify(settings)};\n`,
      'webwatch.config.js': `export default ${JSON.stringify(settings)};\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      const home = tempDir();
      const project = join(home, 'work', 'site');
      writeFiles({ [name]: text, 'docs/README.md': '' }, project);
      // Found from a directory below the project's, as from anywhere in a repository.
      const cwd = join(project, 'docs');
      const result = webwatch(['monitor', 'list'], { cwd, env: { HOME: home, WEBWATCH_HOME: join(home, 'data') } });
      assert.equal(result.code, 2, `${name}: ${result.stderr}`);
      assert.equal(
        result.stderr,
        `error: invalid configuration:\n${join(project, name)}${AT[name] ?? ''}: serve.port: must be at most 65535 (got 99999)\n`,
        name,
      );
    }
  });

  it('says where in a YAML or JSON configuration file a setting is wrong, and what was meant', () => {
    const home = tempDir();
    const project = join(home, 'site');
    writeFiles({ '.webwatchrc': 'apiUrl: http://127.0.0.1:9\nllm:\n  baseUrl: http://127.0.0.1:9/v1\n  model: m\n  modle: gpt\n' }, project);
    const result = webwatch(['monitor', 'list', '--json'], { cwd: project, env: { HOME: home, WEBWATCH_HOME: join(home, 'data') } });
    assert.equal(result.code, 2);
    const rc = join(project, '.webwatchrc');
    assert.deepEqual(JSON.parse(result.stdout).details, [`${rc}:5:3: llm.modle: unknown field "modle" (did you mean "model"?)`]);
  });

  it("takes the user's file under the project's, and no other file of the user's configuration directory", () => {
    const home = tempDir();
    const project = join(home, 'site');
    const xdg = join(home, 'xdg');
    // The search's last stop is that directory, where it would take config.json before config.yaml.
    writeFiles({ 'webwatch/config.yaml': 'apiUrl: http://127.0.0.1:9/v2\n', 'webwatch/config.json': '{"apiUrl": "http://127.0.0.1:7/v2"}\n' }, xdg);
    writeFiles({ 'README.md': 'no settings here\n' }, project);
    const env = { HOME: home, XDG_CONFIG_HOME: xdg, WEBWATCH_HOME: join(home, 'data') };
    const apiUrl = () => (JSON.parse(webwatch(['auth', 'status', '--json'], { cwd: project, env }).stdout) as { apiUrl: string }).apiUrl;
    assert.equal(apiUrl(), 'http://127.0.0.1:9/v2');
    writeFiles({ '.webwatchrc.yaml': 'apiUrl: http://127.0.0.1:8/v2\n' }, project);
    assert.equal(apiUrl(), 'http://127.0.0.1:8/v2');
  });

  it('says where a package.json or .config/ file of the working directory does not parse, never quoting it', () => {
    // cosmiconfig reads them first, for its own meta configuration, with parsers that quote the text.
    const home = tempDir();
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), WEBWATCH_HOME: join(home, 'data') };
    const broken = writeFiles({ 'package.json': '{\n  "name": "site",\n  "token": "sk-LEAKED" x\n}\n' }, join(home, 'a'));
    for (const mode of [[], ['--json']]) {
      const result = webwatch(['monitor', 'list', ...mode], { cwd: broken, env });
      assert.equal(result.code, 2);
      assert.match(result.stdout + result.stderr, new RegExp(`cannot read the configuration: ${join(broken, 'package.json')}:3:24: invalid JSON`));
      assert.doesNotMatch(result.stdout + result.stderr, /sk-LEAKED/);
    }
    const meta = writeFiles({ '.config/config.yaml': 'a: [1, 2\nkey: sk-LEAKED\n' }, join(home, 'b'));
    const result = webwatch(['monitor', 'list'], { cwd: meta, env });
    assert.equal(result.code, 2);
    assert.match(result.stderr, new RegExp(`^error: cannot read the configuration: ${join(meta, '.config', 'config.yaml')}:2:1: invalid YAML`));
    assert.doesNotMatch(result.stderr, /sk-LEAKED/);
  });

  it('names the file and the error of a JavaScript configuration that throws', () => {
    const home = tempDir();
    const project = join(home, 'site');
    writeFiles({ 'webwatch.config.mjs': "throw new Error('no settings here');\n" }, project);
    const result = webwatch(['monitor', 'list'], { cwd: project, env: { HOME: home, WEBWATCH_HOME: join(home, 'data') } });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, `error: cannot read the configuration: ${join(project, 'webwatch.config.mjs')}: no settings here\n`);
  });

  it('Ctrl-C stops every command the same way: a message (or a JSON error) and exit 130', async () => {
    // A page that never answers: each command below is surely waiting on it when interrupted.
    let asked = 0;
    const server = await startServer({}, () => void asked++);
    try {
      const home = tempDir();
      const monitor = writeFiles({ 'slow.yaml': `name: Slow\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${server.url}"]}]\n` });
      const env = { PATH: process.env.PATH ?? '', WEBWATCH_HOME: home };
      assert.equal(webwatch(['monitor', 'apply', monitor], { env }).code, 0);
      const interrupted = async (args: string[]) => {
        const before = asked;
        const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const started = Date.now();
        while (asked === before && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 20));
        child.kill('SIGINT');
        const interruptedAt = Date.now();
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        // At once, not when the page's 60-second timeout would have ended the work left behind.
        assert.ok(Date.now() - interruptedAt < 30_000, `${args.join(' ')} took ${Date.now() - interruptedAt} ms to exit after Ctrl-C`);
        return { code, stdout, stderr };
      };
      for (const args of [
        ['map', server.url],
        ['monitor', 'run', 'Slow'],
        ['scrape', server.url],
      ]) {
        assert.deepEqual(await interrupted(args), { code: 130, stdout: '', stderr: 'error: interrupted\n' }, args.join(' '));
      }
      for (const args of [
        ['map', server.url, '--json'],
        ['monitor', 'run', 'Slow', '--json'],
      ]) {
        const { code, stdout, stderr } = await interrupted(args);
        assert.deepEqual(
          { code, stderr, body: JSON.parse(stdout) },
          { code: 130, stderr: '', body: { success: false, error: 'interrupted', code: 'INTERRUPTED' } },
          args.join(' '),
        );
      }
    } finally {
      await server.close();
    }
  });

  it('validates the examples', () => {
    const result = webwatch(['monitor', 'validate', 'examples/']);
    assert.equal(result.code, 0);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, '✓ 3 monitors in 2 files valid\n');
  });

  it('exits 2 with located errors for an invalid definition from stdin', () => {
    const result = webwatch(['monitor', 'validate', '-'], {
      input: 'name: x\nschedule: {text: every 2 minutes}\ntargets: [{type: scrape, urls: [https://a.example]}]\n',
    });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '<stdin>:2:18  schedule.text  every 2 minutes is more often than the minimum interval of 5 minutes\n');
    assert.equal(result.stderr, '✗ 1 error in 1 of 1 file\n');
  });

  it('stops reading endless standard input at the size limit of a definition file', async () => {
    const child = spawn(process.execPath, [BIN, 'monitor', 'validate', '-'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    // Like `yes | webwatch monitor validate -`: the input never ends, so only stopping ends the run.
    const line = Buffer.from(`#${'x'.repeat(1022)}\n`.repeat(64));
    const write = () => {
      while (child.stdin.writable && child.stdin.write(line));
    };
    child.stdin.on('drain', write).on('error', () => {});
    write();
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => (child.kill(), reject(new Error('still reading after 20 s'))), 20_000);
      child.on('exit', (exitCode) => (clearTimeout(timer), resolve(exitCode)));
    });
    assert.equal(code, 2);
    assert.equal(stdout, '<stdin>  standard input is over the 8 MiB limit of a definition file\n');
  });

  it('exits 2 on an unknown command, with a suggestion', () => {
    const result = webwatch(['monitr', 'validate']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, "error: unknown command 'monitr'\nhint: did you mean monitor? (webwatch --help lists them)\n");
  });

  it('a usage error points at the help of the command that failed', () => {
    const missing = webwatch(['monitor', 'check', 'Acme']);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, "error: missing required argument 'check'\nhint: webwatch monitor check --help shows the usage\n");
    const option = webwatch(['scrape', '--formt', 'x']);
    assert.equal(option.stderr, "error: unknown option '--formt'\nhint: did you mean --format? (webwatch scrape --help lists them)\n");
  });

  it('with --json, a usage error is one JSON error body on stdout', () => {
    const result = webwatch(['monitor', 'validate', '--json', '--bogus', 'x.yaml']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, '');
    const body = JSON.parse(result.stdout);
    assert.equal(body.success, false);
    assert.match(body.error, /unknown option '--bogus'/);
    assert.equal(body.code, 'USAGE_ERROR', "the exit code's name, when the error has no code of its own");
  });

  it('exits 2 when a required argument is missing', () => {
    const result = webwatch(['monitor', 'validate']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^error: name the definition files: /);
  });

  it('help exit-codes prints the table', () => {
    const result = webwatch(['help', 'exit-codes']);
    assert.equal(result.code, 0);
    // Piped: tab-separated rows, no header.
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.deepEqual(
      rows.map((row) => row[0]),
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '130'],
    );
    assert.deepEqual(rows[12], ['130', 'interrupted (Ctrl-C)']);
    const json = JSON.parse(webwatch(['help', 'exit-codes', '--json']).stdout);
    assert.deepEqual(json[2], {
      code: 2,
      name: 'USAGE_ERROR',
      meaning:
        'usage error or invalid input: bad flags, invalid YAML or definition, HTTP 400/413/422, or a setting the request needs is missing (no model, no search provider)',
    });
  });

  it('help <command> shows that command', () => {
    const result = webwatch(['help', 'monitor', 'validate']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: webwatch monitor validate \[options\] \[files\.\.\.\]/);
    assert.equal(webwatch(['help', 'nothing']).code, 2);
  });

  it('without a command, shows help and exits 2', () => {
    const result = webwatch([]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Usage: webwatch/);
  });

  it('a closed pipe is not an error', () => {
    const result = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" schema | head -c 1`], { encoding: 'utf8' });
    assert.equal(result.stdout, '{');
    assert.equal(result.stderr, '');
    assert.equal(result.status, 0);
  });

  it('a command that stops with its work undone (nothing left to keep Node running) exits 1 and says so, never 0', () => {
    // The CLI's main replaced, through a module hook, by one that never settles: what an unref'd
    // timer or a dropped promise in a command looks like to the launcher.
    const dir = writeFiles({
      'stuck-main.mjs': 'export const main = () => new Promise(() => {});\nexport const processIo = () => ({});\n',
      'hooks.mjs': `export async function resolve(specifier, context, next) {\n  return specifier.endsWith('/cli/main.js') ? { url: new URL('./stuck-main.mjs', import.meta.url).href, shortCircuit: true } : next(specifier, context);\n}\n`,
      'register.mjs': `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`,
    });
    const result = spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, 'monitor', 'list'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', WEBWATCH_BUNDLE: '0' },
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^error: internal error: webwatch stopped before the command finished/m);
  });

  it('Ctrl-C exits 130', async () => {
    // validate - waits on standard input, which this test keeps open.
    const child = spawn(process.execPath, [BIN, 'monitor', 'validate', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    assert.equal(code, 130);
  });

  it('reports every file of a directory at once', () => {
    const dir = writeFiles({
      'a.yaml': 'name: a\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: [https://a.example]}]\n',
      'nested/b.yml': 'name: b\nschedule: {cron: "0 25 * * *"}\ntargets: [{type: scrape, urls: [https://b.example]}]\n',
      'nested/c.yaml': 'name: c\nschedule: {cron: "0 * * * *", timezone: Mars/Base}\ntargets: [{type: scrape, urls: [https://c.example]}]\n',
    });
    const result = webwatch(['monitor', 'validate', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.stdout.replaceAll(dir, '<dir>').trim().split('\n'), [
      '<dir>/nested/b.yml:2:18  schedule.cron  hour field: 25 is out of range 0-23',
      '<dir>/nested/c.yaml:2:41  schedule.timezone  "Mars/Base" is not an IANA time zone; use a name like Europe/Paris or America/New_York',
    ]);
  });
});

describe('start-up', () => {
  /**
   * The modules a command loads, recorded by a module hook in the child process. Without the
   * bundle, whose modules load lazily in the same order but inside one file, out of the hook's sight.
   */
  function loadedModules(args: string[], env: Record<string, string> = {}): string[] {
    const dir = tempDir();
    const log = join(dir, 'loaded.txt');
    writeFileSync(log, '');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`,
    );
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);`);
    const result = spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, WEBWATCH_BUNDLE: '0', ...env },
    });
    assert.equal(result.status, 0, result.stderr);
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  }

  it('--version loads nothing but the launcher', () => {
    const loaded = loadedModules(['--version']);
    assert.ok(
      loaded.some((url) => url.endsWith('/bin/webwatch.js')),
      'the hook records modules',
    );
    assert.deepEqual(
      loaded.filter((url) => url.includes('/dist/') || url.includes('/node_modules/')),
      [],
    );
  });

  it('the command tree loads no schema, YAML or cron module', () => {
    const loaded = loadedModules(['help', 'exit-codes']);
    assert.ok(
      loaded.some((url) => url.includes('/commander/')),
      'the hook records modules',
    );
    for (const heavy of ['/zod/', '/yaml/', '/croner/', '/dist/src/spec/']) {
      assert.ok(!loaded.some((url) => url.includes(heavy)), `${heavy} was loaded to build the command tree`);
    }
  });

  it('monitor list does not load the model client, even with a model configured', () => {
    const config = writeFiles({ 'webwatch/config.yaml': 'llm: {baseUrl: "http://127.0.0.1:9/v1", model: test-model}\n' });
    const loaded = loadedModules(['monitor', 'list'], { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: config });
    assert.ok(
      loaded.some((url) => url.includes('/better-sqlite3/')),
      "the hook records the engine's modules",
    );
    assert.deepEqual(
      loaded.filter((url) => /\/node_modules\/openai\/|\/engine\/llm\/|\/engine\/judge\/llm-judge/.test(url)),
      [],
    );
  });

  it('monitor validate loads what it needs and nothing of the engine', () => {
    const loaded = loadedModules(['monitor', 'validate', 'examples/']);
    assert.ok(loaded.some((url) => url.includes('/zod/')));
    assert.ok(!loaded.some((url) => /better-sqlite3|playwright|pdfjs|undici/.test(url)));
  });
});

describe('start-up from the bundle', () => {
  const bundle = join(ROOT, 'dist/webwatch.cjs');
  const current = existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(join(ROOT, 'dist/src/cli/main.js')).mtimeMs;

  /**
   * The files of the bundle a command reads (recorded by a preloaded hook on fs.readFileSync, in
   * the child process), and the modules those files hold.
   */
  function bundleRead(args: string[], env: Record<string, string> = {}): { files: string[]; modules: string[] } {
    const dir = tempDir();
    const log = join(dir, 'read.txt');
    writeFileSync(log, '');
    writeFileSync(
      join(dir, 'hook.cjs'),
      `const fs = require('node:fs');
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string' && file.startsWith(${JSON.stringify(join(ROOT, 'dist'))}) && file.endsWith('.cjs')) fs.appendFileSync(${JSON.stringify(log)}, file + '\\n');
  return readFileSync.call(this, file, ...rest);
};`,
    );
    const result = spawnSync(process.execPath, ['--require', join(dir, 'hook.cjs'), BIN, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), ...env },
    });
    assert.equal(result.status, 0, result.stderr);
    const files = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((file) => relative(ROOT, file).split(sep).join('/'));
    // esbuild writes the path of each module it bundles on a comment line before the module's code.
    const modules = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^\s*\/\/ ((?:dist|node_modules)\/\S+)$/gm)].map((match) => match[1]!),
    );
    return { files, modules };
  }

  it('--help reads the first file of the bundle and no chunk', { skip: !current && 'no current bundle' }, () => {
    const { files, modules } = bundleRead(['--help']);
    assert.deepEqual(files, ['dist/webwatch.cjs']);
    assert.ok(modules.includes('dist/src/cli/program.js'));
  });

  it('monitor validate reads the chunks of the schemas and the YAML parser, none of the engine, server or scrape', {
    skip: !current && 'no current bundle',
  }, () => {
    const { files, modules } = bundleRead(['monitor', 'validate', 'examples/']);
    assert.ok(files.length > 1 && files.every((file) => /^dist\/webwatch(\.cjs|\/\d+\.cjs)$/.test(file)), files.join(', '));
    for (const needed of ['dist/src/spec/monitor.js', 'dist/src/cli/commands/monitor/validate.run.js']) {
      assert.ok(modules.includes(needed), `${needed} is not in the chunks read`);
    }
    assert.ok(modules.some((file) => file.startsWith('node_modules/zod/')));
    assert.ok(modules.some((file) => file.startsWith('node_modules/yaml/')));
    const unwanted = modules.filter((file) =>
      /^dist\/src\/(server|engine\/(scrape|store|crawl|browser|monitors|agent|notify))\/|^dist\/src\/cli\/commands\/(scrape|serve|crawl)\.run\.js$|^node_modules\/(kysely|cheerio|htmlparser2|mdream|lilconfig)\//.test(
        file,
      ),
    );
    assert.deepEqual(unwanted, []);
  });

  it('monitor list reads the chunks of the store, none of scraping or the server', { skip: !current && 'no current bundle' }, () => {
    const { modules } = bundleRead(['monitor', 'list']);
    assert.ok(modules.includes('dist/src/engine/store/database.js'));
    assert.deepEqual(
      modules.filter((file) =>
        /^dist\/src\/(server\/|engine\/scrape\/|engine\/crawl\/crawl\.js|engine\/browser\/render\.js)|^node_modules\/(cheerio|htmlparser2|mdream|yaml)\//.test(
          file,
        ),
      ),
      [],
    );
  });
});
