/**
 * webwatch as an MCP server: the tools of a scraper (scrape, map, search, crawl, batch scrape,
 * extract, agent) and of a monitor (validate, apply, list, run a check, read its pages and
 * diffs) over one Backend: the embedded engine, or a remote v2 API. Argument schemas are those
 * of src/spec; the SDK refuses bad arguments before a tool runs. Results are sized for a model
 * (results.ts); long tools report progress and stop when the call is cancelled.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toolKit, type WebwatchMcpOptions } from './tool-kit.js';
import { registerAgentTools } from './tools/agents.js';
import { registerCrawlTools } from './tools/crawl.js';
import { registerMonitorTools } from './tools/monitors.js';
import { registerMoreTool } from './tools/more.js';
import { registerParseTool } from './tools/parse.js';
import { registerInteractTools } from './tools/interact.js';
import { registerScrapeTools } from './tools/scrape.js';

export type { WebwatchMcpOptions } from './tool-kit.js';

export function createWebwatchMcp(options: WebwatchMcpOptions): McpServer {
  const server = new McpServer(
    { name: 'webwatch', version: options.version },
    {
      instructions:
        'webwatch scrapes, crawls, maps and searches the web, runs agent and extract jobs, and keeps monitors that check pages for changes. Results longer than a few thousand words are cut with a note: call webwatch_more to read on.',
    },
  );
  // One module per resource (tools/), each registering its tools, in the order a client lists them.
  const kit = toolKit(server, options);
  registerScrapeTools(kit);
  if (options.localFiles) registerParseTool(kit);
  registerInteractTools(kit);
  registerCrawlTools(kit);
  registerAgentTools(kit);
  registerMonitorTools(kit);
  registerMoreTool(kit);
  return server;
}
