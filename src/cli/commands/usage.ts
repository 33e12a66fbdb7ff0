import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function usageCommand(runtime: Runtime): Command {
  return new Command('usage')
    .description("credits and model tokens used this month and by month (the embedded engine, or the API key's team)")
    .addHelpText(
      'after',
      `
Credits are counted as the hosted API prices work: a page 1 (plus the extras of its options), a
map 1, a search 2 per 10 results, an agent job what it charged; tokens are those of the model's
replies (agent jobs and the judge).

Examples:
  $ webwatch usage
  $ webwatch usage --json | jq '.credits.used'`,
    )
    .action(async (_options: unknown, command: Command) => {
      const { runUsage } = await import('./usage.run.js');
      runtime.exitCode = await runUsage(await contextFor(command, runtime));
    });
}
