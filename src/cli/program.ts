/** The command tree. Building it loads no heavy module: actions import theirs when they run. */
import { Command, Option } from 'commander';
import { completeCommand, completionCommand } from './commands/completion.js';
import { crawlCommand } from './commands/crawl.js';
import { mapCommand } from './commands/map.js';
import { searchCommand } from './commands/search.js';
import { usageCommand } from './commands/usage.js';
import { helpCommand } from './commands/help.js';
import { monitorCommand } from './commands/monitor/index.js';
import { schemaCommand } from './commands/schema.js';
import { initCommand } from './commands/init.js';
import { parseCommand } from './commands/parse.js';
import { interactCommand } from './commands/interact.js';
import { scrapeCommand } from './commands/scrape.js';
import { keysCommand, serveCommand } from './commands/serve.js';
import { mcpCommand } from './commands/mcp.js';
import { dbCommand } from './commands/db.js';
import { agentCommand } from './commands/agent.js';
import { extractCommand } from './commands/extract.js';
import { loginCommand, logoutCommand } from './commands/login.js';
import { authCommand, whoamiCommand } from './commands/auth.js';
import type { Runtime } from './context.js';
import { version } from './version.js';

export function buildProgram(runtime: Runtime): Command {
  const program = new Command('webwatch');
  const root = () => program;
  program
    .description('Web monitoring and scraping: monitor definitions in YAML, checked locally, run remotely or on an embedded engine.')
    .version(version(), '-V, --version', 'print the version')
    .addOption(new Option('--json', 'print one JSON document on stdout (errors too)'))
    .addOption(new Option('--no-color', 'no colour (also NO_COLOR=1, FORCE_COLOR=0 or TERM=dumb)'))
    .addOption(new Option('-q, --quiet', 'no messages on stderr, only data and errors'))
    .addOption(new Option('--no-pager', 'never show long output (diffs) through $PAGER'))
    .addOption(new Option('--api-url <url>', 'act on this remote v2 API (also WEBWATCH_API_URL, config apiUrl)'))
    .addOption(new Option('--api-key <key>', 'key for the remote API (also WEBWATCH_API_KEY, webwatch login)'))
    .addOption(new Option('--local', 'act on the local engine even when an API URL is configured'))
    .addOption(new Option('--verbose', 'log each API request and retry on stderr (keys redacted)'))
    .showSuggestionAfterError(true)
    .addHelpText('after', '\nRun "webwatch help exit-codes" for the exit codes.')
    .addCommand(initCommand(runtime))
    .addCommand(monitorCommand(runtime))
    .addCommand(scrapeCommand(runtime))
    .addCommand(parseCommand(runtime))
    .addCommand(interactCommand(runtime))
    .addCommand(crawlCommand(runtime))
    .addCommand(mapCommand(runtime))
    .addCommand(searchCommand(runtime))
    .addCommand(agentCommand(runtime))
    .addCommand(extractCommand(runtime))
    .addCommand(usageCommand(runtime))
    .addCommand(loginCommand(runtime))
    .addCommand(logoutCommand(runtime))
    .addCommand(authCommand(runtime))
    .addCommand(whoamiCommand(runtime))
    .addCommand(serveCommand(runtime))
    .addCommand(mcpCommand(runtime))
    .addCommand(keysCommand(runtime))
    .addCommand(dbCommand(runtime))
    .addCommand(schemaCommand(runtime))
    .addCommand(completionCommand(runtime, root))
    .addCommand(helpCommand(runtime, root))
    .addCommand(completeCommand(runtime), { hidden: true });
  return program;
}
