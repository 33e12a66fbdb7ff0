/**
 * The package as users get it: `npm pack` holds exactly what webwatch needs, and the tarball
 * installs globally into a temporary prefix and runs from any directory, without install scripts
 * (the SQLite module comes compiled in its package).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { tempDir, writeFiles } from '../helpers/files.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  engines: { node: string };
};
const run = promisify(execFile);

/** npm's own lifecycle variables (npm test sets them) would point npm back at this checkout. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const VALID = `name: Pricing
schedule: {cron: "0 * * * *"}
targets: [{type: scrape, urls: [https://example.com/pricing]}]
`;

describe('the npm package', () => {
  const scratch: string[] = [];
  const scratchDir = () => {
    const dir = tempDir();
    scratch.push(dir);
    return dir;
  };
  let tarball: string;
  let packed: string[];

  before(async () => {
    const destination = scratchDir();
    // Scripts off: the tests run on the build they were compiled with, and a pack's prepack
    // (a clean build) would remove dist/ under the other test files.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], {
      cwd: ROOT,
      env: cleanEnv({}),
      maxBuffer: 64 * 1024 * 1024,
    });
    const [result] = JSON.parse(stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
    tarball = join(destination, result!.filename);
    packed = result!.files.map((file) => file.path).sort();
    console.log(
      `${result!.filename}: ${(result!.size / 1024).toFixed(0)} KiB packed, ${(result!.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${packed.length} files`,
    );
  });

  after(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  it('holds exactly the launcher, the compiled sources, the completions, the README and its docs/, the licence and package.json', () => {
    const compiled = filesUnder(join(ROOT, 'src'))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
      .map((file) => `dist/${relative(ROOT, file).split(sep).join('/').replace(/\.ts$/, '.js')}`);
    const expected = [
      'package.json',
      'README.md',
      'LICENSE',
      // The bundled CLI, its chunks and their V8 code caches (build/bundle.mjs), which the launcher prefers.
      'dist/webwatch.cjs',
      'dist/webwatch.cjs.cache',
      ...readdirSync(join(ROOT, 'dist/webwatch')).map((name) => `dist/webwatch/${name}`),
      ...readdirSync(join(ROOT, 'bin')).map((name) => `bin/${name}`),
      ...readdirSync(join(ROOT, 'completions')).map((name) => `completions/${name}`),
      // The reference the README links to, and messages name (docs/serve.md, docs/models.md).
      ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`),
      ...compiled,
    ].sort();
    const extra = packed.filter((file) => !expected.includes(file));
    const missing = expected.filter((file) => !packed.includes(file));
    assert.deepEqual({ extra, missing }, { extra: [], missing: [] }, 'an extra dist/ file may be stale output: rm -rf dist and build again');
    assert.ok(Object.values(PACKAGE.bin).every((bin) => packed.includes(bin)));
  });

  it('depends on exactly the packages its code imports', () => {
    const imported = new Set<string>();
    // Static and dynamic imports, require, require.resolve, and createRequire(...)('name') of modules loaded on demand.
    const specifier =
      /^(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"\s]+)['"]|\bimport\(\s*['"]([^'"\s]+)['"]\s*\)|\brequire(?:\.resolve)?\(\s*['"]([^'"\s]+)['"]\s*\)|\bcreateRequire\([^)]*\)\(\s*['"]([^'"\s]+)['"]\s*\)/gm;
    for (const file of packed.filter((path) => path.endsWith('.js'))) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(specifier)) {
        const spec = match[1] ?? match[2] ?? match[3] ?? match[4]!;
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    assert.deepEqual([...imported].sort(), Object.keys(PACKAGE.dependencies).sort());
  });

  it('installs globally from the tarball with no install script, and runs from any directory, the local engine included', { timeout: 300_000 }, async () => {
    const prefix = scratchDir();
    const started = Date.now();
    // As the CI recipes install tools: no package runs a script of its own. better-sqlite3
    // brings its compiled SQLite in the package; nothing is built or downloaded.
    await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', tarball], {
      cwd: scratchDir(),
      env: cleanEnv({}),
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    console.log(`npm install --global --ignore-scripts: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const installed = join(prefix, 'lib', 'node_modules', 'webwatch');
    assert.ok(!existsSync(join(installed, 'node_modules', 'better-sqlite3', 'build')), 'nothing was compiled');

    const elsewhere = writeFiles({ 'monitors/pricing.yaml': VALID });
    const env = cleanEnv({ PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, WEBWATCH_HOME: scratchDir(), XDG_CONFIG_HOME: scratchDir() });
    const webwatch = (...args: string[]) => run('webwatch', args, { cwd: elsewhere, env });
    assert.equal((await webwatch('--version')).stdout, `${PACKAGE.version}\n`);
    assert.equal((await webwatch('monitor', 'validate', 'monitors/')).stderr, '✓ 1 monitor in 1 file valid\n');
    // The local engine: SQLite through the binary that came in the package.
    await webwatch('monitor', 'apply', '-f', 'monitors/', '--quiet');
    assert.deepEqual(
      JSON.parse((await webwatch('monitor', 'list', '--json')).stdout).map((m: { name: string }) => m.name),
      ['Pricing'],
    );
    // npx finds the installed command and runs it without installing anything.
    const npx = await run('npx', ['--no', '--', 'webwatch', '--version'], { cwd: elsewhere, env: { ...env, npm_config_prefix: prefix } });
    assert.equal(npx.stdout, `${PACKAGE.version}\n`);

    // A system better-sqlite3 has no binary for (a BSD, say): the local engine says so and how
    // to build one; what needs no store still works.
    const binaries = join(installed, 'node_modules', 'better-sqlite3', 'prebuilds');
    rmSync(binaries, { recursive: true });
    await assert.rejects(webwatch('monitor', 'list'), (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr, /^error: cannot open the engine database .*: better-sqlite3 has no compiled SQLite for linux-(x64|arm64)$/m);
      assert.match(error.stderr, /hint: build one where webwatch is installed: cd node_modules\/better-sqlite3 && npx node-gyp rebuild --release/);
      assert.doesNotMatch(error.stderr, /at .*\.js:\d+/, 'no stack');
      return true;
    });
    assert.equal((await webwatch('monitor', 'validate', 'monitors/')).stderr, '✓ 1 monitor in 1 file valid\n');
  });

  describe('on a remote API', () => {
    let api: ServingWebwatch;
    before(async () => {
      api = await serveWebwatch();
    });
    after(async () => {
      await api.stop();
    });

    it('plans and applies from the installed package', { timeout: 300_000 }, async () => {
      const prefix = scratchDir();
      await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', tarball], {
        cwd: scratchDir(),
        env: cleanEnv({}),
        timeout: 240_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      const elsewhere = writeFiles({ 'monitors/pricing.yaml': VALID });
      const key = (await api.keys.create('acme', new Date())).key;
      const env = cleanEnv({
        PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
        WEBWATCH_HOME: scratchDir(),
        XDG_CONFIG_HOME: scratchDir(),
        WEBWATCH_API_URL: api.url,
        WEBWATCH_API_KEY: key,
      });
      const webwatch = (args: string[]) => run('webwatch', args, { cwd: elsewhere, env });
      await assert.rejects(webwatch(['monitor', 'diff', '-f', 'monitors/', '--detailed-exitcode']), (error: { code: number; stdout: string }) => {
        assert.equal(error.code, 8);
        assert.match(error.stdout, /^\+ create +Pricing$/m);
        return true;
      });
      await webwatch(['monitor', 'apply', '-f', 'monitors/', '--quiet']);
      assert.match((await webwatch(['monitor', 'diff', '-f', 'monitors/', '--detailed-exitcode'])).stdout, /^= unchanged +Pricing {2}\([0-9a-f-]{36}\)\n$/);
    });
  });

  it('declares the Node.js it needs, and the launcher says so plainly on an older one', async () => {
    assert.equal(PACKAGE.engines.node, '^22.14.0 || ^24.0.0 || ^26.0.0');
    // An older Node, as the launcher sees it: process.versions says so. Node 20 would crash in
    // the SQLite module; 22.13 lacks the Node-API it needs.
    for (const version of ['20.20.2', '22.13.1']) {
      const preload = join(scratchDir(), 'older-node.cjs');
      writeFileSync(
        preload,
        `Object.defineProperty(process, 'version', { value: 'v${version}' }); Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });\n`,
      );
      await assert.rejects(
        run(process.execPath, ['--require', preload, join(ROOT, 'bin', 'webwatch.js'), 'monitor', 'list']),
        (error: { code: number; stderr: string }) => {
          assert.equal(error.code, 1);
          assert.equal(
            error.stderr,
            `webwatch needs Node.js 22.14 or newer (22, 24 or 26); this is v${version}\n` +
              `hint: run it on Node.js 24 from the npm registry, in this shell: export PATH="$(npx -y -p node@24 -c 'dirname "$(realpath "$(command -v node)")"'):$PATH"\n`,
          );
          return true;
        },
      );
    }
  });
});
