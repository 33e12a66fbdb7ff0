/**
 * `main(argv, io)` runs one webwatch command and returns its exit code. It never calls
 * process.exit: only bin/webwatch.js does, so commands run in-process in tests.
 */
import { CommanderError, type Command } from 'commander';
import { EXIT } from '../errors/exit-codes.js';
import { UsageError } from '../errors/webwatch-error.js';
import { processIo, type Io } from '../ui/io.js';
import { Output } from '../ui/output.js';
import { renderError } from '../ui/render-error.js';
import type { Runtime } from './context.js';
import { buildProgram } from './program.js';

export { processIo };

/** Commander errors that are not failures: help and version were shown. */
const SHOWN = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

function applyToTree(command: Command, io: Io) {
  command.exitOverride();
  command.helpOption('-h, --help', 'show help').helpCommand(false);
  // A subcommand's help lists the global flags too (--json, --api-url...), which it takes.
  command.configureHelp({ showGlobalOptions: true });
  command.configureOutput({
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    // Usage errors are rendered by renderError, like every other error.
    outputError: () => {},
  });
  for (const sub of command.commands) applyToTree(sub, io);
}

/** The words of argv that name commands (`monitor check`), for a usage error's hint. */
function commandPath(program: Command, argv: readonly string[]): string {
  const path: string[] = [];
  let command = program;
  for (const word of argv) {
    if (word.startsWith('-')) continue;
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    path.push(sub.name());
    command = sub;
  }
  return path.join(' ');
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  const runtime: Runtime = { io, exitCode: EXIT.ok };
  const program = buildProgram(runtime);
  applyToTree(program, io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return runtime.exitCode;
  } catch (error) {
    // Flags may not have been parsed when the error came, so read them from argv.
    const output = await Output.create(io, {
      json: argv.includes('--json'),
      color: !argv.includes('--no-color'),
      quiet: argv.includes('-q') || argv.includes('--quiet'),
    });
    if (error instanceof CommanderError) {
      if (SHOWN.has(error.code) && error.exitCode === 0) return EXIT.ok;
      if (error.code === 'commander.help' || error.code === 'commander.helpDisplayed') return EXIT.usage;
      // "(Did you mean monitor?)" on its own line becomes the hint; else the failing command's help.
      const [said, guess] = error.message.replace(/^error: /, '').split(/\n\(Did you mean (.+)\?\)/);
      const path = commandPath(program, argv);
      const suggestion = guess
        ? `did you mean ${guess}? (webwatch ${path ? `${path} ` : ''}--help lists them)`
        : `webwatch ${path ? `${path} ` : ''}--help shows the usage`;
      return renderError(new UsageError(said!.trim(), { suggestion }), output);
    }
    return renderError(error, output);
  }
}
