import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';
import { collect } from '../scrape-flags.js';

export function parseCommand(runtime: Runtime): Command {
  return new Command('parse')
    .description('read local files (PDF, Word, OpenDocument, RTF, spreadsheets, HTML) as markdown, as a scrape of them would')
    .argument('<file...>', 'files to read, or - for standard input (with --filename)')
    .option('-f, --format <formats>', 'comma-separated formats: markdown (default), html, rawHtml, links, images, summary, json', collect)
    .option('-o, --output <path>', 'write to this file, or into this directory: a file per input and format, named after it')
    .option('--filename <name>', 'the name of standard input, whose extension says its format (report.docx)')
    .addHelpText(
      'after',
      `
On the embedded engine the files are read here; with --api-url they are uploaded to the API's
POST /v2/parse (up to 50 MB each).

Examples:
  $ webwatch parse terms.docx > terms.md
  $ webwatch parse prices.xlsx --json | jq -r '.data.markdown'
  $ curl -s https://example.com/q3.xlsx | webwatch parse - --filename q3.xlsx
  $ webwatch parse reports/*.pdf -o markdown/`,
    )
    .action(async (files: string[], options: unknown, command: Command) => {
      const { runParse } = await import('./parse.run.js');
      runtime.exitCode = await runParse(await contextFor(command, runtime), files, options);
    });
}
