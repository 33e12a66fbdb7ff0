import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';
import { collect } from '../scrape-flags.js';

export function agentCommand(runtime: Runtime): Command {
  const agent = new Command('agent').description('agent jobs: start one, follow its trace, read its artifacts, cancel it');
  agent
    .command('run')
    .description('start an agent job and follow its trace until it ends (the result on stdout)')
    .argument('<prompt>', 'what the agent should find or do')
    .option('--url <url>', 'a URL to start from (repeatable)', collect)
    .option('--schema <file>', 'a JSON Schema (.json, .yaml) the result must match')
    .option('--max-credits <n>', 'stop the run when it would use more credits than this')
    .addOption(new Option('--effort <level>', 'how much work the agent may do').choices(['low', 'medium', 'high']))
    .option('--detach', 'print the job id and return at once (a server or remote API runs the job)')
    .option('-o, --output <file>', 'write the result (JSON) to this file')
    .addHelpText(
      'after',
      `
On a terminal the trace is shown live on stderr, with a status line saying what the agent waits
for now, and a summary at the end; piped, only the result reaches stdout. The exit code is the
run's outcome: 0 succeeded, 1 failed, 6 credit limit, 9 refused, 10 cancelled; 0 only with the
result. Ctrl-C stops following; a job on a server goes on (cancel it with webwatch agent cancel <id>).

Examples:
  $ webwatch agent run "List the plans and monthly prices" --url https://example.com/pricing --schema plans.json
  $ webwatch agent run "Find the changelog's latest version" --detach`,
    )
    .action(async (prompt: string, options: unknown, command: Command) => {
      const { runAgentRun } = await import('./agent.run.js');
      runtime.exitCode = await runAgentRun(await contextFor(command, runtime), prompt, options);
    });
  agent
    .command('status')
    .description("an agent job's status, credits and result")
    .argument('<id>', 'the job id, or a unique prefix of 4+ characters')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { runAgentStatus } = await import('./agent.run.js');
      runtime.exitCode = await runAgentStatus(await contextFor(command, runtime), id);
    });
  agent
    .command('list')
    .description('agent jobs, newest first')
    .action(async (_options: unknown, command: Command) => {
      const { runAgentList } = await import('./agent.run.js');
      runtime.exitCode = await runAgentList(await contextFor(command, runtime));
    });
  agent
    .command('trace')
    .description("an agent job's trace: a timeline on a terminal, JSON lines when piped or with --json")
    .argument('<id>', 'the job id, or a unique prefix of 4+ characters')
    .option('-f, --follow', 'keep printing events until the run has ended, with a live status line on a terminal; the exit code is its outcome')
    .option('--since <n>', 'only events after this producerSequence')
    .action(async (id: string, options: unknown, command: Command) => {
      const { runAgentTrace } = await import('./agent.run.js');
      runtime.exitCode = await runAgentTrace(await contextFor(command, runtime), id, options);
    });
  agent
    .command('snapshot')
    .description('an artifact snapshot of a job (its id is in the trace: artifact.updated)')
    .argument('<id>', 'the job id, or a unique prefix of 4+ characters')
    .argument('<snapshotId>', 'the snapshot id')
    .option('-o, --output <file>', 'write the snapshot to this file')
    .action(async (id: string, snapshotId: string, options: unknown, command: Command) => {
      const { runAgentSnapshot } = await import('./agent.run.js');
      runtime.exitCode = await runAgentSnapshot(await contextFor(command, runtime), id, snapshotId, options);
    });
  agent
    .command('cancel')
    .description('cancel a running agent job')
    .argument('<id>', 'the job id, or a unique prefix of 4+ characters')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { runAgentCancel } = await import('./agent.run.js');
      runtime.exitCode = await runAgentCancel(await contextFor(command, runtime), id);
    });
  return agent;
}
