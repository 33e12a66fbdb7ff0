/** Interact on a remote API: POST and DELETE /scrape/{id}/interact, as the hosted SDK calls them. */
import type { InteractAnswer, InteractStopped } from '../../contract/interact.js';
import type { InteractService } from '../../services/interfaces.js';
import type { Remote } from './remote.js';

export function remoteInteract({ client }: Remote): InteractService {
  const path = (scrapeId: string) => `/scrape/${encodeURIComponent(scrapeId)}/interact`;
  return {
    // The API knows where its scrapes were: the origin is the command line's engine's alone.
    run: (scrapeId, request) => client.request<InteractAnswer>('POST', path(scrapeId), { body: { ...request, language: request.language ?? 'node' } }),
    stop: (scrapeId) => client.request<InteractStopped>('DELETE', path(scrapeId)),
  };
}
