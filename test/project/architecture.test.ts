/**
 * The folders of the source and what each may import, checked on the TypeScript sources (type
 * imports included) by dependency-cruiser rather than by hand. Every folder of src, and every
 * folder of src/engine on its own, has a row below listing the folders it may import besides
 * itself: an import of any other folder of src is an error, and so is an import cycle. The rows
 * are in layers, lowest first, and a row names only folders of the rows before it, so no two
 * folders can import each other, in a pair or round a longer circle. docs/development.md shows
 * the same table ("Folders"), and this test keeps it so.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { cruise, type IForbiddenRuleType, type IViolation } from 'dependency-cruiser';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Below the engine: the interface's rules and the shapes every side shares, and what they stand on. */
const BELOW_ENGINE: Record<string, readonly string[]> = {
  errors: [],
  lib: [],
  // Declarations of packages that ship none.
  types: [],
  // The interface's rules (schemas, limits, what a valid schedule is, the error catalog).
  spec: ['errors', 'lib'],
  // The shapes of what is stored and sent.
  contract: ['spec'],
  // When a valid schedule runs.
  schedule: ['spec', 'errors', 'lib'],
  // The configuration files: what they say, in their own terms.
  config: ['spec', 'errors', 'lib'],
  // Streams, colour, output formats, for the command line.
  ui: ['spec', 'contract', 'errors', 'lib'],
};

/** What every folder of the engine may import: the engine knows nothing of who asks, of terminals or of configuration files. */
const UNDER_ENGINE = ['spec', 'contract', 'schedule', 'errors', 'lib'];

/** The engine's folders, each with the engine folders it may import besides UNDER_ENGINE. */
const ENGINE: Record<string, readonly string[]> = {
  content: [],
  fetch: [],
  llm: [],
  pii: [],
  search: [],
  store: [],
  threat: [],
  tools: [],
  browser: ['fetch', 'store'],
  diff: ['content'],
  judge: ['llm'],
  keys: ['store'],
  documents: ['content', 'tools'],
  pdf: ['tools'],
  usage: ['store'],
  extract: ['browser', 'content', 'llm'],
  media: ['browser', 'fetch', 'tools'],
  notify: ['content', 'diff', 'fetch', 'store'],
  scrape: ['browser', 'content', 'diff', 'documents', 'extract', 'fetch', 'llm', 'media', 'pdf', 'pii', 'store', 'threat'],
  crawl: ['fetch', 'llm', 'notify', 'scrape', 'store'],
  map: ['crawl', 'fetch', 'scrape'],
  monitors: ['browser', 'crawl', 'diff', 'extract', 'fetch', 'judge', 'notify', 'scrape', 'search', 'store'],
  agent: ['extract', 'llm', 'map', 'notify', 'scrape', 'search', 'store'],
  interact: ['browser', 'content', 'fetch', 'llm', 'scrape', 'tools'],
  report: ['diff', 'monitors'],
  scheduler: ['monitors', 'store'],
};

/** Above the engine: who asks. `engine` stands for every folder of the engine. */
const ABOVE_ENGINE: Record<string, readonly string[]> = {
  // One service per resource: a team's behaviour over the engine.
  services: ['spec', 'contract', 'errors', 'lib', 'schedule', 'config', 'engine'],
  // The command line's two Backends, over the local services or a v2 API; nothing of core.
  backend: ['spec', 'contract', 'errors', 'lib', 'config', 'engine/browser', 'engine/fetch', 'services'],
  // What commands do, with no terminal.
  core: ['spec', 'contract', 'errors', 'lib', 'schedule', 'engine/diff', 'services'],
  // webwatch serve: the v2 HTTP API and its worker.
  server: ['spec', 'contract', 'errors', 'lib', 'config', 'engine', 'services'],
  // The MCP server, an adapter over core and a Backend.
  mcp: ['spec', 'contract', 'errors', 'lib', 'engine/content', 'services', 'core'],
  // The command tree: everything above, and the terminal.
  cli: ['spec', 'contract', 'errors', 'lib', 'schedule', 'config', 'ui', 'engine/diff', 'services', 'backend', 'core', 'server', 'mcp'],
};

/** Every folder (`engine/NAME` for the engine's) with the folders it may import, lowest first. */
const FOLDERS: ReadonlyMap<string, readonly string[]> = new Map([
  ...Object.entries(BELOW_ENGINE),
  ...Object.entries(ENGINE).map(([name, engine]) => [`engine/${name}`, [...UNDER_ENGINE, ...engine.map((to) => `engine/${to}`)]] as const),
  ...Object.entries(ABOVE_ENGINE),
]);

const ENGINE_FOLDERS = Object.keys(ENGINE).map((name) => `engine/${name}`);
/** `engine` as every folder of it. */
const expanded = (allowed: readonly string[]) => allowed.flatMap((to) => (to === 'engine' ? ENGINE_FOLDERS : [to]));

const folderRule = (from: string, allowed: readonly string[]): IForbiddenRuleType => ({
  name: `${from} imports only ${allowed.join(', ') || 'itself'}`,
  severity: 'error',
  from: { path: `^src/${from}/` },
  to: { path: '^src/', pathNot: [from, ...allowed].map((folder) => `^src/${folder}/`) },
});

const CYCLES: IForbiddenRuleType = { name: 'no import cycles', severity: 'error', from: {}, to: { circular: true } };
// What the services offer wherever they run (the Backend of a command among it), and the remote
// client, know nothing of the engine: they pass the shapes of src/contract.
const BACKEND_INTERFACE: IForbiddenRuleType = {
  name: "the services' interfaces and the remote client do not import engine",
  severity: 'error',
  from: { path: ['^src/services/interfaces\\.ts$', '^src/backend/remote/'] },
  to: { path: '^src/engine/' },
};
const FOLDER_RULES = new Map([...FOLDERS].map(([from, allowed]) => [from, folderRule(from, allowed)]));

/** Each engine folder's layer: 1 for one that imports no other, else one above the highest it imports. */
function engineLayers(): Map<string, number> {
  const layers = new Map<string, number>();
  for (const [name, imports] of Object.entries(ENGINE)) layers.set(name, 1 + Math.max(0, ...imports.map((to) => layers.get(to) ?? Infinity)));
  return layers;
}

const DOC_WIDTH = 96;

/** The table as docs/development.md shows it. */
function folderGraph(): string {
  const width =
    Math.max(
      ...[...Object.keys(BELOW_ENGINE), ...Object.keys(ABOVE_ENGINE)].map((name) => name.length),
      ...Object.keys(ENGINE).map((name) => name.length + 4),
    ) + 2;
  // A line wraps before the document's width, its names going on under the first.
  const row = (name: string, allowed: readonly string[]) => {
    const lines = [name.padEnd(width)];
    const pieces = allowed.length > 0 ? allowed.map((to, i) => (i < allowed.length - 1 ? `${to},` : to)) : ['-'];
    for (const piece of pieces) {
      const line = lines.at(-1)!;
      if (line.length === width) lines[lines.length - 1] = `${line}${piece}`;
      else if (line.length + 1 + piece.length <= DOC_WIDTH) lines[lines.length - 1] = `${line} ${piece}`;
      else lines.push(`${' '.repeat(width)}${piece}`);
    }
    return lines.join('\n');
  };
  const layers = engineLayers();
  const engine = Object.keys(ENGINE)
    .map((name, i) => ({ name, i, layer: layers.get(name)! }))
    .sort((a, b) => a.layer - b.layer || a.i - b.i)
    .map(({ name, layer }) => row(`  ${layer} ${name}`, ENGINE[name]!));
  return [
    row('folder', ['may import, besides itself']),
    ...Object.entries(BELOW_ENGINE).map(([name, allowed]) => row(name, allowed)),
    row('engine/', [...UNDER_ENGINE.map((to, i) => (i === 0 ? `each: ${to}` : to)), 'and the engine folders on its line']),
    ...engine,
    ...Object.entries(ABOVE_ENGINE).map(([name, allowed]) => row(name, allowed)),
  ].join('\n');
}

describe('the architecture', () => {
  let violations: IViolation[] = [];

  before(async () => {
    const tsConfig = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile).config;
    const previous = process.cwd();
    process.chdir(ROOT);
    try {
      const forbidden = [CYCLES, BACKEND_INTERFACE, ...FOLDER_RULES.values()];
      const result = await cruise(
        ['src'],
        { tsPreCompilationDeps: true, validate: true, ruleSet: { forbidden }, doNotFollow: { path: 'node_modules' } },
        {},
        { tsConfig },
      );
      const output = result.output as Exclude<typeof result.output, string>;
      assert.ok(output.summary.totalCruised > 100, `only ${output.summary.totalCruised} modules were read`);
      violations = output.summary.violations;
    } finally {
      process.chdir(previous);
    }
  });

  const broken = (rule: IForbiddenRuleType) =>
    violations
      .filter((v) => v.rule.name === rule.name)
      .map((v) => `${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((step) => step.name).join(' -> ')})` : ''}`);

  it('has no import cycles', () => assert.deepEqual(broken(CYCLES), []));

  for (const [from, rule] of FOLDER_RULES) {
    it(`${from} imports only the folders of its row`, () => assert.deepEqual(broken(rule), []));
  }

  it("keeps the engine out of the services' interfaces and the remote client", () => assert.deepEqual(broken(BACKEND_INTERFACE), []));

  it('has a row for every folder of src and of src/engine, and no file outside them', () => {
    const entries = (folder: string) =>
      readdirSync(`${ROOT}${folder}`, { withFileTypes: true }).map((entry) => ({
        name: entry.name,
        path: `${folder}/${entry.name}`,
        isDirectory: entry.isDirectory(),
      }));
    const folders = [
      ...entries('src')
        .filter((entry) => entry.isDirectory && entry.name !== 'engine')
        .map((entry) => entry.name),
      ...entries('src/engine')
        .filter((entry) => entry.isDirectory)
        .map((entry) => `engine/${entry.name}`),
    ];
    const loose = [...entries('src'), ...entries('src/engine')].filter((entry) => !entry.isDirectory).map((entry) => entry.path);
    assert.deepEqual(
      [...folders.filter((folder) => !FOLDERS.has(folder)).map((folder) => `src/${folder}/ has no row`), ...loose.map((file) => `${file} is in no folder`)],
      [],
    );
  });

  it('is in layers: each row names only folders of the rows before it, so none import each other', () => {
    const seen = new Set<string>();
    const late: string[] = [];
    for (const [from, allowed] of FOLDERS) {
      for (const to of expanded(allowed)) if (!seen.has(to)) late.push(`${from} -> ${to}`);
      seen.add(from);
    }
    assert.deepEqual(late, []);
  });

  it('is the table of "Folders" in docs/development.md', () => {
    const doc = readFileSync(`${ROOT}docs/development.md`, 'utf8');
    const block = /<!-- folders: [^\n]*-->\n```\n([\s\S]*?)\n```/.exec(doc)?.[1];
    assert.ok(block !== undefined, 'docs/development.md has no "<!-- folders: ... -->" block');
    assert.equal(block, folderGraph(), `docs/development.md should show the table as:\n${folderGraph()}`);
  });
});
