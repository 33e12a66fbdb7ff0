/** The configured search provider. */
import type { SearchSettings } from '../../config/config.js';
import { searxngProvider, v2SearchProvider, type SearchProvider } from './search.js';

export function searchProvider(settings: SearchSettings): SearchProvider {
  return settings.provider === 'searxng' ? searxngProvider(settings.baseUrl) : v2SearchProvider(settings.apiUrl, settings.apiKey);
}
