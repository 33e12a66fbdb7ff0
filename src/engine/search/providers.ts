/** The configured search provider. */
import { searxngProvider, v2SearchProvider, type SearchProvider } from './search.js';

/** Which search provider the configuration names (config `search`), with its address and key. */
export type SearchSettings = ({ provider: 'searxng'; baseUrl: string } | { provider: 'v2'; apiUrl: string }) & { apiKey?: string };

export function searchProvider(settings: SearchSettings): SearchProvider {
  return settings.provider === 'searxng' ? searxngProvider(settings.baseUrl) : v2SearchProvider(settings.apiUrl, settings.apiKey);
}
