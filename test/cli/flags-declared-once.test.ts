/**
 * Every command's flags are declared twice by necessity: as commander options in the light
 * declaration files (start-up loads no zod) and as the zod schema its run file parses them
 * with. A flag added to one side only would be dropped silently; this test ties the two for
 * every command of the tree, and the global flags to what the commands read of them.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { describe, it } from 'node:test';
import type { Command, Option } from 'commander';
import type { z } from 'zod';
import { buildProgram } from '../../src/cli/program.js';
import { globalOptionsOf } from '../../src/cli/context.js';
import { collect } from '../../src/cli/scrape-flags.js';

const commandsDir = new URL('../../src/cli/commands/', import.meta.url);

/** Every run file's flagSchemas, merged by command path. */
async function schemasByCommand(): Promise<Map<string, z.ZodObject>> {
  const schemas = new Map<string, z.ZodObject>();
  const files = (await readdir(commandsDir, { recursive: true })).filter((file) => file.endsWith('.run.js'));
  assert.ok(files.length > 10, `run files found: ${files.length}`);
  for (const file of files) {
    const module = (await import(new URL(file, commandsDir).href)) as { flagSchemas?: Record<string, z.ZodObject> };
    for (const [path, schema] of Object.entries(module.flagSchemas ?? {})) {
      assert.ok(!schemas.has(path), `${path} has flag schemas in two run files`);
      schemas.set(path, schema);
    }
  }
  return schemas;
}

/** Each command below the root, by its path ("monitor apply"), with its own options. */
function commandsOf(program: Command): Map<string, readonly Option[]> {
  const found = new Map<string, readonly Option[]>();
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const subPath = [...path, sub.name()];
      found.set(subPath.join(' '), sub.options);
      walk(sub, subPath);
    }
  };
  walk(program, []);
  return found;
}

/** The type under optional(), default() and the like: what a value of the flag must be. */
function baseType(field: z.ZodType): string {
  let def = field._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  while (def.innerType ?? (def.type === 'pipe' ? def.in : undefined)) def = (def.innerType ?? def.in)!._zod.def as typeof def;
  return def.type;
}

/** What the option takes on the command line, in the terms of the schema's base types. */
function expectedKind(option: Option): 'boolean' | 'array' | 'value' {
  if (!option.required && !option.optional) return 'boolean';
  return option.parseArg === collect || option.variadic ? 'array' : 'value';
}

/** What differs between the declared options and the parsed schemas, one line each. */
function flagProblems(commands: Map<string, readonly Option[]>, schemas: Map<string, z.ZodObject>): string[] {
  const problems: string[] = [];
  for (const path of schemas.keys()) if (!commands.has(path)) problems.push(`flag schema for "${path}", which is no command`);
  for (const [path, options] of commands) {
    const declared = new Map(options.map((option) => [option.attributeName(), option]));
    const schema = schemas.get(path);
    if (!schema) {
      if (declared.size > 0) problems.push(`${path}: declares ${[...declared.keys()].join(', ')} but its run file exports no flag schema for it`);
      continue;
    }
    const parsed = Object.keys(schema.shape);
    for (const [name, option] of declared) {
      const field = schema.shape[name] as z.ZodType | undefined;
      if (!field) {
        problems.push(`${path}: ${option.long} is declared but not parsed`);
        continue;
      }
      const kind = expectedKind(option);
      const base = baseType(field);
      const fits = kind === 'boolean' ? base === 'boolean' : kind === 'array' ? base === 'array' : base !== 'boolean' && base !== 'array';
      if (!fits)
        problems.push(
          `${path}: ${option.long} takes ${kind === 'value' ? 'a value' : kind === 'array' ? 'repeated values' : 'no value'}, its schema is ${base}`,
        );
    }
    for (const name of parsed) if (!declared.has(name)) problems.push(`${path}: the schema parses ${name}, which is no flag of the command`);
  }
  return problems;
}

describe('flags declared once', () => {
  const program = buildProgram({ io: {} as never, exitCode: 0 });

  it("every command's options and its run file's schema name the same flags, of the same kinds", async () => {
    assert.deepEqual(flagProblems(commandsOf(program), await schemasByCommand()), []);
  });

  it('each global flag changes what the commands read of the globals', () => {
    const read = (args: string[]) => {
      const fresh = buildProgram({ io: {} as never, exitCode: 0 });
      fresh.exitOverride();
      const usage = fresh.commands.find((command) => command.name() === 'usage')!;
      usage.action(() => {});
      fresh.parse(['node', 'webwatch', ...args, 'usage']);
      return globalOptionsOf(usage);
    };
    const plain = read([]);
    for (const option of program.options) {
      if (option.long === '--version') continue;
      const args = option.required ? [option.long!, 'value'] : [option.long!];
      assert.notDeepEqual(read(args), plain, `${option.long} is declared but changes nothing the commands read`);
    }
  });

  it('fails on a flag declared on one side only, or of another kind', async () => {
    const schemas = await schemasByCommand();
    const changed = buildProgram({ io: {} as never, exitCode: 0 });
    const map = changed.commands.find((command) => command.name() === 'map')!;
    map.option('--extra-flag <value>', 'not in the schema');
    const search = changed.commands.find((command) => command.name() === 'search')!;
    (search.options as Option[]).splice(
      search.options.findIndex((option) => option.long === '--limit'),
      1,
    );
    const monitors = changed.commands.find((command) => command.name() === 'monitor')!;
    monitors.commands.find((command) => command.name() === 'list')!.options[0]!.required = true;
    assert.deepEqual(flagProblems(commandsOf(changed), schemas), [
      'monitor list: --all takes a value, its schema is boolean',
      'map: --extra-flag is declared but not parsed',
      'search: the schema parses limit, which is no flag of the command',
    ]);
    schemas.delete('init');
    assert.match(flagProblems(commandsOf(program), schemas).join('\n'), /^init: declares type, name, url but its run file exports no flag schema/);
  });
});
