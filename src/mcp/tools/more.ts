/** webwatch_more: the rest of a result cut to a part of the model's context (results.ts). */
import { z } from 'zod';
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { textResult } from '../results.js';
import { guarded, type ToolKit } from '../tool-kit.js';

/** Reads on in a long result. */
export function registerMoreTool(kit: ToolKit): void {
  const { server, pages } = kit;
  server.registerTool(
    'webwatch_more',
    {
      title: 'The rest of a long result',
      description: 'The part of a result that was cut, from `offset`, as the note at the end of the result said.',
      inputSchema: z.object({ id: z.string().uuid(), offset: z.number().int().min(0) }).strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ id, offset }) => {
      const text = pages.more(id, offset);
      if (text === undefined)
        throw new WebwatchError(`result ${id} is no longer kept (the server keeps the latest 50)`, {
          exitCode: EXIT.notFound,
          code: 'NOT_FOUND',
          suggestion: 'call the tool that gave it again',
        });
      return textResult(text);
    }),
  );
}
