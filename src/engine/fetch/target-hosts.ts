/**
 * The private-address rule applied to many URLs at once (a monitor definition when it is saved,
 * a job's webhook): each host is judged once, a few at a time, with a bound on each lookup, so a
 * monitor with thousands of URLs on a few hosts costs a few lookups. Fetches and deliveries apply the rule
 * again (and at connect time), so a lookup that times out here lets nothing through.
 */
import type { NormalizedMonitor } from '../../spec/monitor.js';
import { inParallel } from '../../lib/in-parallel.js';

const LOOKUPS_AT_ONCE = 16;
const LOOKUP_BOUND_MS = 3000;

/** Every URL a definition will fetch or post to: scrape URLs, crawl roots and the webhook. */
export function targetUrls(definition: NormalizedMonitor): URL[] {
  const urls: URL[] = [];
  for (const target of definition.targets) {
    if (target.type === 'scrape') for (const url of target.urls) urls.push(new URL(url));
    if (target.type === 'crawl') urls.push(new URL(target.url));
  }
  if (definition.webhook) urls.push(new URL(definition.webhook.url));
  return urls;
}

/** Throws the rule's refusal for the first refused host (in the definition's order). */
export async function refusePrivateHosts(urls: readonly URL[], checkUrl: (url: URL) => void | Promise<void>): Promise<void> {
  const byHost = new Map<string, URL>();
  for (const url of urls) if (!byHost.has(url.hostname)) byHost.set(url.hostname, url);
  const hosts = [...byHost.values()];
  const refusals = await inParallel(hosts, LOOKUPS_AT_ONCE, async (host) => {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, LOOKUP_BOUND_MS)));
    try {
      await Promise.race([checkUrl(host), bound]);
      return undefined;
    } catch (error) {
      return error;
    } finally {
      clearTimeout(timer);
    }
  });
  const refused = refusals.find((error) => error !== undefined);
  if (refused !== undefined) throw refused;
}
