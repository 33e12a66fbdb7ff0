/** Declarations of the monitor commands that act on a backend (behaviour in monitors.run.ts). */
import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../../context.js';
import { definitionFiles, withDefinitionFiles } from '../../definition-arguments.js';

const run = () => import('./monitors.run.js');

function formatOption(): Option {
  return new Option(
    '--format <format>',
    'the plan as text or as Markdown for a pull-request comment (markdown); invalid files as GitHub Actions annotations (github; the default when GITHUB_ACTIONS=true)',
  ).choices(['text', 'markdown', 'github']);
}

export function applyCommand(runtime: Runtime): Command {
  return withDefinitionFiles(new Command('apply'))
    .description('create or update monitors to match the files, matched by name; idempotent')
    .option('--dry-run', 'show the plan and change nothing')
    .option('--prune', 'delete monitors that are not in the files (asks first, or --yes)')
    .option('-y, --yes', 'do not ask before deleting')
    .option('--detailed-exitcode', 'exit 8 when the plan has changes')
    .addOption(formatOption())
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch monitor apply monitors/
  $ webwatch monitor apply monitors/ --prune --yes --json
  $ webwatch monitor apply -f prices.yaml -f news.yaml --dry-run --detailed-exitcode   # exit 8: changes pending`,
    )
    .action(async (files: string[], options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runApply(
        await contextFor(command, runtime),
        { ...(options as object), file: definitionFiles(files, options as { file?: string[] }) },
        'apply',
      );
    });
}

export function diffCommand(runtime: Runtime): Command {
  return withDefinitionFiles(new Command('diff'))
    .description('show what apply would change, field by field; changes nothing')
    .option('--prune', 'include the monitors apply --prune would delete')
    .option('--detailed-exitcode', 'exit 8 when there are changes')
    .addOption(formatOption())
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch monitor diff monitors/
  $ webwatch monitor diff monitors/ --prune --format markdown --detailed-exitcode > plan.md   # a pull-request comment`,
    )
    .action(async (files: string[], options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runApply(
        await contextFor(command, runtime),
        { ...(options as object), file: definitionFiles(files, options as { file?: string[] }) },
        'diff',
      );
    });
}

export function createCommand(runtime: Runtime): Command {
  return withDefinitionFiles(new Command('create'))
    .description('create the monitors of the files (a name that exists is a conflict)')
    .action(async (files: string[], options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runCreate(await contextFor(command, runtime), {
        ...(options as object),
        file: definitionFiles(files, options as { file?: string[] }),
      });
    });
}

export function listCommand(runtime: Runtime): Command {
  return new Command('list')
    .description('list monitors')
    .option('--all', 'include deleted monitors')
    .action(async (options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runList(await contextFor(command, runtime), options);
    });
}

export function getCommand(runtime: Runtime): Command {
  return new Command('get')
    .description('show one monitor')
    .argument('<monitor>', 'id or name')
    .action(async (monitor: string, _options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runGet(await contextFor(command, runtime), monitor);
    });
}

export function exportCommand(runtime: Runtime): Command {
  return new Command('export')
    .description('print monitors as YAML definitions that apply reads back as unchanged (all, or those named)')
    .argument('[monitors...]', 'ids or names (default: every monitor that is not deleted)')
    .option('--show-secrets', 'write header values instead of ${VARIABLE} references')
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch monitor export > monitors.yaml
  $ webwatch monitor export "Pricing pages" > pricing.yaml && webwatch monitor diff -f pricing.yaml`,
    )
    .action(async (monitors: string[], options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runExport(await contextFor(command, runtime), monitors, options);
    });
}

export function stateCommand(runtime: Runtime, change: 'pause' | 'resume' | 'delete'): Command {
  const description = {
    pause: 'pause a monitor: no scheduled checks',
    resume: 'resume a paused monitor',
    delete: 'delete a monitor (asks first on a terminal)',
  }[change];
  const command = new Command(change).description(description).argument('<monitor>', 'id or name');
  if (change === 'delete') command.option('-y, --yes', 'do not ask');
  return command.action(async (monitor: string, options: unknown, self: Command) => {
    runtime.exitCode = await (await run()).runStateChange(await contextFor(self, runtime), monitor, change, options);
  });
}

export function runCommand(runtime: Runtime): Command {
  return new Command('run')
    .description('run a check of a monitor now, or with --due every check that is due, and print the summary')
    .argument('[monitor]', 'id or name')
    .option('--wait', 'wait for the check to finish (the local engine always does)')
    .option('--due', 'run every active monitor whose next run time has come, once, and exit (for system cron)')
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch monitor run Pricing --wait
  # crontab: every 5 minutes, run what is due
  */5 * * * * webwatch monitor run --due --quiet`,
    )
    .action(async (monitor: string | undefined, options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runMonitorNow(await contextFor(command, runtime), monitor, options);
    });
}

export function checksCommand(runtime: Runtime): Command {
  return new Command('checks')
    .description('list the checks of a monitor, newest first')
    .argument('<monitor>', 'id or name')
    .action(async (monitor: string, _options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runChecks(await contextFor(command, runtime), monitor);
    });
}

export function checkCommand(runtime: Runtime): Command {
  return new Command('check')
    .description('show one check: its pages, and on a terminal the diff of each changed page')
    .argument('<monitor>', 'id or name')
    .argument('<check>', 'check id, unique id prefix, or latest')
    .addOption(new Option('--status <status>', 'only pages with this status').choices(['new', 'same', 'changed', 'removed', 'error']))
    .action(async (monitor: string, checkId: string, options: unknown, command: Command) => {
      runtime.exitCode = await (await run()).runCheckShow(await contextFor(command, runtime), monitor, checkId, options);
    });
}

const reportRun = () => import('./report.run.js');

export function reportCommand(runtime: Runtime): Command {
  return new Command('report')
    .description('write a check as one self-contained HTML page: changes side by side with words marked, screenshots compared, history')
    .argument('<monitor>', 'id or name')
    .argument('[check]', 'check id, unique id prefix, or latest (default: the newest check that found changes)')
    .option('-o, --output <file>', 'where to write it (- for stdout; default: webwatch-report-<monitor>-<check>.html here)')
    .option('--open', "open the report in the browser ($BROWSER, else the system's)")
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch monitor report Pricing --open
  $ webwatch monitor report Pricing latest -o report.html
  $ webwatch monitor report Pricing 3f2a9c1e -o - > check.html`,
    )
    .action(async (monitor: string, check: string | undefined, options: unknown, command: Command) => {
      runtime.exitCode = await (await reportRun()).runReport(await contextFor(command, runtime), monitor, check, options);
    });
}

export function historyCommand(runtime: Runtime): Command {
  return new Command('history')
    .description('recent checks with their counts and a chart of changes, or with --field one extracted JSON value over time')
    .argument('<monitor>', 'id or name')
    .option('--field <field>', 'a field of the JSON a target extracts, written as plans[0].price')
    .option('--limit <n>', 'how many recent checks (1-1000)', '30')
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch monitor history Pricing
  $ webwatch monitor history Pricing --field plans[0].price
  $ webwatch monitor history Pricing --field price --json | jq '.points[-1].value'`,
    )
    .action(async (monitor: string, options: unknown, command: Command) => {
      runtime.exitCode = await (await reportRun()).runHistory(await contextFor(command, runtime), monitor, options);
    });
}
