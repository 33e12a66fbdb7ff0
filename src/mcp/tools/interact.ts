/**
 * webwatch_interact and webwatch_interact_stop: go on working in the page a webwatch_scrape
 * opened, by a prompt or code, as `webwatch interact` does. On the embedded engine the code is the
 * model's, so it runs in bubblewrap as serve runs its callers'. The scrapes this server answered
 * are remembered here, so that a session knows where its page was.
 */
import { z } from 'zod';
import type { InteractOrigin } from '../../contract/interact.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { originOf } from '../../services/interact-scrapes.js';
import { textResult } from '../results.js';
import { guarded, type ToolKit } from '../tool-kit.js';

const remembered = new Map<string, InteractOrigin>();
const REMEMBERED_MAX = 200;

/** Remembers where a scrape this server answered landed, with its profile and device. */
export function rememberScrape(document: ScrapeDocument, options: ScrapeOptions): void {
  const origin = originOf(document, options);
  if (!origin) return;
  const { scrapeId, ...where } = origin;
  remembered.set(scrapeId, where);
  if (remembered.size > REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!);
}

export function registerInteractTools(kit: ToolKit): void {
  const { server, backend, pages } = kit;
  server.registerTool(
    'webwatch_interact',
    {
      title: 'Work in a scraped page',
      description:
        "Go on working in the page of an earlier webwatch_scrape (its metadata.scrapeId), keeping its cookies, storage and place between calls: a prompt (plain words: the configured model clicks, types and reads) or code (a node program; `page` is the browser page: `await page.locator('#price').textContent()`, `await page.click('text=Annual')`). Code answers `result` (its value), stdout and stderr. End the session with webwatch_interact_stop.",
      inputSchema: z
        .object({
          scrapeId: z.string().min(1),
          prompt: z.string().min(1).optional(),
          code: z.string().min(1).optional(),
          language: z.enum(['node', 'python']).optional().describe('of code: node (default), or python with the names of Playwright for Python'),
          timeout: z.number().min(1).max(300).optional().describe('seconds (default 30)'),
        })
        .strict(),
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    guarded(async ({ scrapeId, prompt, code, language, timeout }) => {
      const answer = await backend.interact.run(
        scrapeId,
        { ...(prompt && { prompt }), ...(code && { code, language: language ?? 'node' }), ...(timeout && { timeout }) },
        remembered.get(scrapeId),
      );
      const { success: _, liveViewUrl: __, interactiveLiveViewUrl: ___, ...shown } = answer;
      return textResult(pages.page(JSON.stringify(shown, null, 2)));
    }),
  );
  server.registerTool(
    'webwatch_interact_stop',
    {
      title: 'End a page session',
      description: 'End the webwatch_interact session of a scrape: how long it was open, and its credits.',
      inputSchema: z.object({ scrapeId: z.string().min(1) }).strict(),
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    guarded(async ({ scrapeId }) => textResult(JSON.stringify(await backend.interact.stop(scrapeId)))),
  );
}
