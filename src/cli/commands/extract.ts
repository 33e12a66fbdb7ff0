import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function extractCommand(runtime: Runtime): Command {
  return new Command('extract')
    .description('structured data from pages, by a model: a prompt and/or a JSON Schema in, JSON out')
    .argument('[urls...]', 'absolute http(s) URLs; one ending in /* stands for the pages of its site under that path')
    .option('--prompt <text>', 'what to extract, in words')
    .option('--schema <file>', 'a JSON Schema (.json, .yaml) the result must match')
    .option('--system-prompt <text>', 'further instructions for the model')
    .option('--show-sources', 'say which page each field of the result came from')
    .option('--web-search', 'also read pages a web search finds (needs a search provider)')
    .option('--allow-external-links', 'let a /* URL reach pages of other sites')
    .option('--ignore-invalid-urls', 'leave out URLs that cannot be read instead of refusing the request')
    .addHelpText(
      'after',
      `
The result goes to stdout as JSON; with --json, the job's whole status document
({"id", "status", "data", "sources", "warning", "creditsUsed", "expiresAt"}), sources included.
Without --json, --show-sources lists the sources on stderr. A job that fails exits 1 with its error.
On the local engine the job runs inside the command, with the configured model (llm.baseUrl,
llm.model); against webwatch serve or a remote API, the server runs it and the command waits.

Examples:
  $ webwatch extract https://example.com/pricing --prompt "the plans and their monthly prices" --schema plans.json
  $ webwatch extract "https://example.com/blog/*" --prompt "the title and date of each post" --show-sources --json`,
    )
    .action(async (urls: string[], options: unknown, command: Command) => {
      const { runExtract } = await import('./extract.run.js');
      runtime.exitCode = await runExtract(await contextFor(command, runtime), urls, options);
    });
}
