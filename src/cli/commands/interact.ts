import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function interactCommand(runtime: Runtime): Command {
  const interact = new Command('interact')
    .description('go on working in the page a scrape opened: a prompt for the model, or code run against the page')
    .argument('[prompt...]', 'what to do, in plain words (the configured model does it with the browser as its tools)')
    .option('-c, --code <code>', 'a program run against the page instead of a prompt: `page` is the browser page (await page.title())')
    .option('-s, --scrape-id <id>', 'the scrape to work in (default: the last one webwatch scrape answered)')
    .addOption(
      new Option('--language <language>', "the language of --code: node (the default) or python (Debian's python3); bash is refused").choices([
        'node',
        'python',
        'bash',
      ]),
    )
    .option('--timeout <seconds>', 'give up after this many seconds (1 to 300, default 30)')
    .addHelpText(
      'after',
      `
The session keeps the page's cookies, storage and place from one call to the next, until
"webwatch interact stop". On the embedded engine the page is opened again for each call where
the last one left it; on a server (--api-url) it stays open between calls. A prompt needs a
model (llm in the config); code runs as a program of yours next to the browser, on this
machine, with an empty environment (a server runs it only when its operator allows it).

Examples:
  $ webwatch scrape https://example.com/pricing > /dev/null
  $ webwatch interact "Click the annual billing tab and tell me the Pro price"
  $ webwatch interact -c "await page.title()"
  $ webwatch interact -c 'print(await page.title())' --language python
  $ webwatch interact -c "await page.locator('h1').textContent()" --json | jq -r .result
  $ webwatch interact stop`,
    )
    .action(async (prompt: string[], options: unknown, command: Command) => {
      const { runInteract } = await import('./interact.run.js');
      runtime.exitCode = await runInteract(await contextFor(command, runtime), prompt, options);
    });
  interact
    .command('stop')
    .description("end the scrape's interact session: how long it was open, and what it cost")
    .argument('[scrape-id]', 'the scrape (default: the last one webwatch scrape answered)')
    .action(async (scrapeId: string | undefined, options: unknown, command: Command) => {
      const { runInteractStop } = await import('./interact.run.js');
      runtime.exitCode = await runInteractStop(await contextFor(command, runtime), scrapeId, options);
    });
  return interact;
}
