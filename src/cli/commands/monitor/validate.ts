import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../../context.js';
import { definitionFiles, withDefinitionFiles } from '../../definition-arguments.js';

export function validateCommand(runtime: Runtime): Command {
  return withDefinitionFiles(new Command('validate'))
    .description('check monitor definition files against every rule of the v2 interface, without any network')
    .option('--print', 'print the normalised definitions (cron schedules, defaults filled, next three runs)')
    .addOption(
      new Option(
        '--format <format>',
        'problems as lines (text), GitHub Actions annotations (github; the default when GITHUB_ACTIONS=true), or a SARIF 2.1.0 log (sarif)',
      ).choices(['text', 'github', 'sarif']),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch monitor validate monitors/
  $ webwatch monitor validate prices.yaml news.yaml --json | jq '.files[].monitors[] | select(.valid | not)'
  $ cat monitor.yaml | webwatch monitor validate -
  $ webwatch monitor validate monitors.yaml --print
  $ webwatch monitor validate monitors/ --format sarif > webwatch.sarif`,
    )
    .action(async (paths: string[], options: object, command: Command) => {
      const { runValidate } = await import('./validate.run.js');
      const { file, ...flags } = options as { file?: string[] };
      runtime.exitCode = await runValidate(await contextFor(command, runtime), definitionFiles(paths, { file }), flags);
    });
}
