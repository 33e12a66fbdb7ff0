/**
 * Definition files, given the way each reader expects: as plain arguments (`monitor validate
 * monitors/`) or with -f (`monitor apply -f monitors/`). Every command that reads them takes
 * both, mixed in one call if need be.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors/webwatch-error.js';
import { collect } from './scrape-flags.js';

export function withDefinitionFiles(command: Command): Command {
  return command
    .argument('[files...]', 'YAML files, directories of .yaml/.yml files, or - for standard input')
    .option('-f, --file <path>', 'a YAML file, directory or - (repeatable; the same as a plain argument)', collect);
}

/** The files given either way, arguments first; none at all is a usage error that shows both ways. */
export function definitionFiles(files: readonly string[], options: { file?: string[] }): string[] {
  const all = [...files, ...(options.file ?? [])];
  if (all.length === 0) {
    throw new UsageError('name the definition files: a YAML file, a directory of .yaml/.yml files, or - for standard input (e.g. monitors/ or -f monitors/)');
  }
  return all;
}
