/** The command tree as plain data, read from commander, for completion scripts. */
import type { Command, Option } from 'commander';

export interface OptionNode {
  flags: string[];
  description: string;
}

export interface CommandNode {
  /** Words after `webwatch`, e.g. ['monitor', 'validate']. */
  path: string[];
  description: string;
  options: OptionNode[];
  /** Values the next positional argument takes (argument choices). */
  choices: string[];
  /** Whether positional arguments are files. */
  takesFiles: boolean;
  subcommands: CommandNode[];
}

function optionNode(option: Option): OptionNode {
  return { flags: [option.short, option.long].filter((f): f is string => Boolean(f)), description: option.description };
}

export function commandTree(command: Command, path: string[] = []): CommandNode {
  const args = command.registeredArguments;
  return {
    path,
    description: command.description(),
    options: [...command.options.filter((o) => !o.hidden).map(optionNode), { flags: ['-h', '--help'], description: 'show help' }],
    choices: args.flatMap((arg) => arg.argChoices ?? []),
    takesFiles: args.some((arg) => /file|dir|path/i.test(arg.name())),
    subcommands: command.commands.map((sub) => commandTree(sub, [...path, sub.name()])),
  };
}

export function walk(node: CommandNode): CommandNode[] {
  return [node, ...node.subcommands.flatMap(walk)];
}
