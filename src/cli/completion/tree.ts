/** The command tree as plain data, read from commander, for completion scripts. */
import { Help, type Argument, type Command, type Option } from 'commander';
import { FORMAT_NAMES, SEARCH_SOURCES } from '../../spec/names.js';

/** What a flag's value or a positional argument is, so a shell can offer candidates. */
export type ValueKind =
  | { kind: 'choices'; values: readonly string[]; commaList?: boolean }
  | { kind: 'files' }
  | { kind: 'directories' }
  /** Monitor names, listed by `webwatch __complete monitors` on the backend in use. */
  | { kind: 'monitors' }
  /** Checks of the monitor given as the first argument (`__complete checks <monitor>`). */
  | { kind: 'checks' }
  | { kind: 'free' };

export interface OptionNode {
  flags: string[];
  description: string;
  /** Absent for a flag that takes no value. */
  value?: ValueKind;
}

export interface CommandNode {
  /** Words after `webwatch`, e.g. ['monitor', 'validate']. */
  path: string[];
  description: string;
  options: OptionNode[];
  /** The positional arguments in order; the last one repeats when `variadic`. */
  args: ValueKind[];
  variadic: boolean;
  subcommands: CommandNode[];
}

/** Value lists named by a flag's argument, where commander has no choices (comma lists). */
const LISTS: Record<string, readonly string[]> = { formats: FORMAT_NAMES, sources: SEARCH_SOURCES };

function kindOf(name: string, choices: readonly string[] | undefined): ValueKind {
  if (choices) return { kind: 'choices', values: choices };
  if (LISTS[name]) return { kind: 'choices', values: LISTS[name], commaList: true };
  if (/^monitors?$/.test(name)) return { kind: 'monitors' };
  if (name === 'check') return { kind: 'checks' };
  if (/^dir/.test(name)) return { kind: 'directories' };
  if (/file|path/.test(name)) return { kind: 'files' };
  return { kind: 'free' };
}

/** `--format <formats>` -> `formats`. */
const argumentName = (option: Option) => /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? '';

function optionNode(option: Option): OptionNode {
  const takesValue = option.required || option.optional;
  return {
    flags: [option.short, option.long].filter((f): f is string => Boolean(f)),
    description: option.description,
    ...(takesValue && { value: kindOf(argumentName(option), option.argChoices) }),
  };
}

const argumentKind = (arg: Argument) => kindOf(arg.name(), arg.argChoices);

export function commandTree(command: Command, path: string[] = []): CommandNode {
  const args = command.registeredArguments;
  return {
    path,
    description: command.description(),
    options: [...command.options.filter((o) => !o.hidden).map(optionNode), { flags: ['-h', '--help'], description: 'show help' }],
    args: args.map(argumentKind),
    variadic: args.at(-1)?.variadic ?? false,
    // Hidden commands (the completion helper itself) are not offered.
    subcommands: new Help().visibleCommands(command).map((sub) => commandTree(sub, [...path, sub.name()])),
  };
}

export function walk(node: CommandNode): CommandNode[] {
  return [node, ...node.subcommands.flatMap(walk)];
}

/**
 * The flags that take a value, as `command path + flag` (`scrape -f`; the global ones with an
 * empty path): the word after them is a value, not a command or an argument. Per command,
 * because one letter may take a value in one command (`scrape -f markdown`) and none in
 * another (`agent trace -f`).
 */
export function valueFlags(root: CommandNode): { global: string[]; perCommand: string[] } {
  const flagsOf = (node: CommandNode) => node.options.filter((o) => o.value).flatMap((o) => o.flags);
  return {
    global: flagsOf(root),
    perCommand: walk(root)
      .filter((node) => node !== root)
      .flatMap((node) => flagsOf(node).map((flag) => `${key(node)} ${flag}`)),
  };
}

const key = (node: CommandNode) => node.path.join(' ');
