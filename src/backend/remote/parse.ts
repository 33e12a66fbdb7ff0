/** Files read on a remote API: uploaded to POST /parse, as the hosted SDK uploads them. */
import { FormData } from 'undici';
import type { ParsedDocument } from '../../contract/scrape.js';
import type { ParseService } from '../../services/interfaces.js';
import type { Remote } from './remote.js';

export function remoteParse({ client }: Remote): ParseService {
  return {
    parse: async (file, options, signal) => {
      const form = new FormData();
      form.append('options', JSON.stringify(options));
      form.append('file', new Blob([new Uint8Array(file.body)], { type: file.contentType }), file.filename);
      const answer = await client.request<{ data: ParsedDocument }>('POST', '/parse', { form, ...(signal && { signal }) });
      return answer.data;
    },
  };
}
