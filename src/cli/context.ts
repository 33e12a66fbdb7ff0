/**
 * What every command's run function receives: the streams, the output layer set up from the
 * global flags, and the environment. Built once per command, never imported as a global.
 */
import type { Command } from 'commander';
import type { Io } from '../ui/io.js';
import { Output } from '../ui/output.js';

export interface GlobalOptions {
  json: boolean;
  color: boolean;
  quiet: boolean;
  verbose: boolean;
  local: boolean;
  apiUrl?: string;
  apiKey?: string;
  /** false with --no-pager. */
  pager?: boolean;
}

/** Shared by the command tree of one `main` call: the streams, and the exit code an action sets. */
export interface Runtime {
  io: Io;
  exitCode: number;
}

export interface CommandContext {
  io: Io;
  output: Output;
  globals: GlobalOptions;
}

export function globalOptionsOf(command: Command): GlobalOptions {
  const raw = command.optsWithGlobals<{
    json?: boolean;
    color?: boolean;
    quiet?: boolean;
    verbose?: boolean;
    local?: boolean;
    apiUrl?: string;
    apiKey?: string;
    pager?: boolean;
  }>();
  return {
    json: raw.json === true,
    color: raw.color !== false,
    quiet: raw.quiet === true,
    verbose: raw.verbose === true,
    local: raw.local === true,
    pager: raw.pager !== false,
    ...(raw.apiUrl !== undefined && { apiUrl: raw.apiUrl }),
    ...(raw.apiKey !== undefined && { apiKey: raw.apiKey }),
  };
}

export async function contextFor(command: Command, { io }: Runtime): Promise<CommandContext> {
  const globals = globalOptionsOf(command);
  return { io, globals, output: await Output.create(io, globals) };
}
