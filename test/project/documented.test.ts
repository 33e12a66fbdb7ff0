/**
 * What a user can type or meet is documented somewhere in README.md or docs/*.md: every command
 * and every flag of the command tree, every exit code of the table, every WEBWATCH_ variable the
 * source reads. A flag added without a word about it fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { configKeys } from '../../src/config/config.js';
import { EXIT_CODE_TABLE } from '../../src/errors/exit-codes.js';
import { DOCS_ROOT, documentation } from '../helpers/docs.js';
import { fakeIo } from '../helpers/io.js';

interface Flag {
  command: string;
  long?: string;
  short?: string;
}

/** The visible commands (as `monitor apply`) and their visible flags, walked from the root. */
function commandTree(program: Command): { commands: string[]; flags: Flag[] } {
  const commands: string[] = [];
  const flags: Flag[] = [];
  const walk = (command: Command, path: string[]) => {
    if ((command as Command & { _hidden?: boolean })._hidden) return;
    if (path.length > 0) commands.push(path.join(' '));
    for (const option of command.options) {
      if (option.hidden) continue;
      // commander's own --version and the negations it adds (--no-color) count as written.
      flags.push({ command: ['webwatch', ...path].join(' '), ...(option.long && { long: option.long }), ...(option.short && { short: option.short }) });
    }
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return { commands, flags };
}

/** A flag is named when its long form, or else its short one, stands in the text as a word. */
const named = (text: string, flag: string) => new RegExp(`(?<![\\w-])${flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(text);

function undocumentedFlags(flags: Flag[], docs: string): string[] {
  return flags
    .filter((flag) => !((flag.long && named(docs, flag.long)) || (flag.short && named(docs, flag.short))))
    .map((flag) => `${flag.command} ${flag.long ?? flag.short}`);
}

/**
 * A command is named as `webwatch PATH`, as PATH in code (`monitor export`, `keys revoke`), or
 * by its name in code on a line that names its parent (`webwatch monitor pause\|resume`).
 */
function undocumentedCommands(commands: string[], docs: string): string[] {
  const lines = docs.split('\n');
  return commands.filter((path) => {
    if (docs.includes(`webwatch ${path}`) || docs.includes(`\`${path}`)) return false;
    const parent = path.split(' ').slice(0, -1).join(' ');
    const name = path.split(' ').at(-1)!;
    if (parent === '') return true;
    return !lines.some((line) => line.includes(`webwatch ${parent} `) && [...line.matchAll(/`[^`]*`/g)].some(([span]) => named(span, name)));
  });
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the documentation', () => {
  const docs = documentation();
  const { commands, flags } = commandTree(buildProgram({ io: fakeIo().io, exitCode: 0 }));

  it('names every command', () => {
    assert.ok(commands.includes('monitor apply') && commands.includes('db check'), `the tree was walked: ${commands.join(', ')}`);
    assert.deepEqual(undocumentedCommands(commands, docs), []);
  });

  it('names every flag of every command', () => {
    assert.ok(
      flags.some((flag) => flag.long === '--detailed-exitcode'),
      'the flags were found',
    );
    assert.deepEqual(undocumentedFlags(flags, docs), []);
  });

  it('gives every exit code of the table, with its name', () => {
    for (const { code, name } of EXIT_CODE_TABLE) {
      assert.match(docs, new RegExp(`^\\| ${code} \\| \`${name}\` \\|`, 'm'), `exit code ${code} (${name}) is in a table of the documentation`);
    }
  });

  it('names every WEBWATCH_ environment variable the source reads', () => {
    const variables = new Set(filesUnder(join(DOCS_ROOT, 'src')).flatMap((file) => readFileSync(file, 'utf8').match(/\bWEBWATCH_[A-Z0-9_]*[A-Z0-9]\b/g) ?? []));
    assert.ok(variables.has('WEBWATCH_HOME'), 'the variables were found');
    assert.deepEqual([...variables].filter((variable) => !named(docs, variable)).sort(), []);
  });

  it('is checked: a flag, a command or a variable named nowhere is found', () => {
    const text =
      'Run `webwatch monitor apply -f x --prune`, `keys list`; WEBWATCH_HOME_DIR is another word.\n| `webwatch monitor pause\\|resume` | and `webwatch db` alone. `revoke`\n';
    assert.deepEqual(
      undocumentedFlags(
        [
          { command: 'webwatch monitor apply', long: '--prune' },
          { command: 'webwatch monitor apply', long: '--file', short: '-f' },
          { command: 'webwatch monitor apply', long: '--pru' },
          { command: 'webwatch scrape', long: '--output', short: '-o' },
        ],
        text,
      ),
      ['webwatch monitor apply --pru', 'webwatch scrape --output'],
    );
    assert.deepEqual(undocumentedCommands(['monitor apply', 'monitor resume', 'monitor delete', 'keys list', 'keys revoke', 'db check'], text), [
      'monitor delete',
      'keys revoke',
      'db check',
    ]);
    assert.equal(named(text, 'WEBWATCH_HOME'), false, 'a longer name does not count for a shorter one');
  });
});

describe('docs/configuration.md', () => {
  it('lists every key of the configuration file in its table', () => {
    const page = readFileSync(join(DOCS_ROOT, 'docs', 'configuration.md'), 'utf8');
    const listed = new Set([...page.matchAll(/^\| `(\w+)/gm)].map((match) => match[1]));
    assert.deepEqual(
      configKeys().filter((key) => !listed.has(key)),
      [],
    );
  });
});
