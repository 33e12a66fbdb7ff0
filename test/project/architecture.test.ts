/**
 * The layers of the source, checked on the TypeScript sources (type imports included) by
 * dependency-cruiser rather than by hand: no import cycles, and each layer imports only the
 * layers below it (see "Layers" in docs/development.md).
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { cruise, type IForbiddenRuleType } from 'dependency-cruiser';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** `from` may not import any of `below`... rather, any of these layers above it. */
const layer = (from: string, notTo: string[]): IForbiddenRuleType => ({
  name: `${from} does not import ${notTo.join(', ')}`,
  severity: 'error',
  from: { path: `^src/${from}/` },
  to: { path: notTo.map((folder) => `^src/${folder}/`) },
});

const RULES: IForbiddenRuleType[] = [
  { name: 'no import cycles', severity: 'error', from: {}, to: { circular: true } },
  // The interface's rules and limits, and the types every side shares, stand on nothing of ours.
  layer('spec', ['engine', 'server', 'cli', 'backend', 'ui', 'core', 'config']),
  {
    name: 'contract imports nothing of ours but spec and contract',
    severity: 'error',
    from: { path: '^src/contract/' },
    to: { path: '^src/', pathNot: '^src/(spec|contract)/' },
  },
  // The engine does the work; it knows nothing of who asks (a command, serve) or of terminals.
  layer('engine', ['server', 'cli', 'backend', 'ui', 'core', 'config']),
  // Behaviour above a backend never touches the terminal.
  layer('core', ['ui', 'cli', 'server']),
  layer('backend', ['server', 'cli', 'ui']),
  // Only the local backend runs the engine: the Backend interface and the remote client read the
  // shapes they pass in src/contract.
  {
    name: 'backend.ts and the remote client do not import engine',
    severity: 'error',
    from: { path: ['^src/backend/backend\\.ts$', '^src/backend/remote/'] },
    to: { path: '^src/engine/' },
  },
  layer('server', ['cli', 'ui']),
  // The MCP server is an adapter over core and a backend, as serve is over the engine.
  layer('mcp', ['cli', 'ui', 'server']),
];

describe('the architecture', () => {
  it('has no import cycles, and each layer imports only those below it', async () => {
    const tsConfig = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile).config;
    const previous = process.cwd();
    process.chdir(ROOT);
    try {
      const result = await cruise(['src'], { tsPreCompilationDeps: true, validate: true, ruleSet: { forbidden: RULES }, doNotFollow: { path: 'node_modules' } }, {}, { tsConfig });
      const output = result.output as Exclude<typeof result.output, string>;
      assert.ok(output.summary.totalCruised > 100, `only ${output.summary.totalCruised} modules were read`);
      const found = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((step) => (typeof step === 'string' ? step : step.name)).join(' -> ')})` : ''}`);
      assert.deepEqual(found, []);
    } finally {
      process.chdir(previous);
    }
  });
});
