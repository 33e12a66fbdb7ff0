/** The MCP tools of model-run jobs: webwatch_extract, webwatch_agent and the agent's status and trace. */
import { z } from 'zod';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { agentRequest, validateAgentRequest } from '../../spec/agent.js';
import { extractRequest, validateExtractRequest } from '../../spec/extract.js';
import { errorResult, json, textResult } from '../results.js';
import { delay, guarded, invalid, progressOf, READ_ONLY as readOnly, type ToolKit } from '../tool-kit.js';

/** Extract data with a model; start, follow and read agent jobs. */
export function registerAgentTools(kit: ToolKit): void {
  const { server, backend, pages } = kit;
  server.registerTool(
    'webwatch_extract',
    {
      title: 'Extract data from pages',
      description:
        'Read pages (URLs, or a site with /*) and return data shaped by a JSON Schema or described by a prompt, with a model. Waits for the result, reporting progress.',
      inputSchema: extractRequest(),
      annotations: readOnly,
    },
    guarded(async (input, extra) => {
      const validation = validateExtractRequest(input);
      if (!validation.ok) throw invalid('extract request', validation.problems);
      const progress = progressOf(extra);
      const { id } = await backend.extract.start(validation.value.request);
      for (let polls = 1; ; polls++) {
        const status = await backend.extract.get(id);
        if (status.status !== 'processing')
          return status.status === 'failed'
            ? errorResult(new WebwatchError(`extract ${id} failed: ${status.error ?? 'no reason given'}`))
            : textResult(pages.page(json(status)));
        await progress(polls, undefined, `extract ${id} processing`);
        await delay(1000, extra.signal);
      }
    }),
  );

  server.registerTool(
    'webwatch_agent',
    {
      title: 'Start an agent job',
      description:
        'Start an agent that browses and searches to answer a prompt (optionally shaped by a JSON Schema). Returns its id at once; with wait: true, follows it to the end, reporting each step as progress, and returns its result. Read a job with webwatch_agent_status and its steps with webwatch_agent_trace.',
      inputSchema: z.object({ ...agentRequest().shape, wait: z.boolean().optional().describe('follow the job to its end') }).strict(),
      annotations: { openWorldHint: true },
    },
    guarded(async ({ wait, ...input }, extra) => {
      const validation = validateAgentRequest(input);
      if (!validation.ok) throw invalid('agent request', validation.problems);
      const { id } = await backend.agents.start(validation.value);
      if (!wait) return textResult(`agent ${id} started: follow it with webwatch_agent_status {"id": "${id}"} or webwatch_agent_trace`);
      const progress = progressOf(extra);
      let since = 0;
      const report = async (events: readonly unknown[]) => {
        for (const event of events) await progress(++since, undefined, `${(event as { type?: string }).type ?? 'event'}`);
      };
      try {
        for (;;) {
          await report((await backend.agents.trace(id, since, { waitMs: 5000, signal: extra.signal })).events);
          const status = await backend.agents.get(id);
          if (status.status !== 'processing') {
            // The events written as the run ended, after the last read.
            await report((await backend.agents.trace(id, since)).events);
            await progress.flushed();
            return textResult(pages.page(`agent ${id}: ${status.status}\n${json(status)}`));
          }
        }
      } catch (error) {
        if (extra.signal.aborted) await backend.agents.cancel(id).catch(() => undefined);
        throw error;
      }
    }),
  );

  server.registerTool(
    'webwatch_agent_status',
    {
      title: "An agent job's status",
      description: 'The status of an agent job (processing, completed, failed) and, once completed, its result.',
      inputSchema: z.object({ id: z.string().uuid() }).strict(),
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ id }) => textResult(pages.page(json(await backend.agents.get(id))))),
  );

  server.registerTool(
    'webwatch_agent_trace',
    {
      title: "An agent job's steps",
      description: 'The trace events of an agent job after the first `since` ones (0: from the start): what it searched, read and decided.',
      inputSchema: z.object({ id: z.string().uuid(), since: z.number().int().min(0).optional() }).strict(),
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ id, since }) => {
      const { events } = await backend.agents.trace(id, since ?? 0);
      return textResult(pages.page(`${events.length} events after ${since ?? 0}\n${json(events)}`));
    }),
  );
}
