/**
 * Host names on 127.0.0.1 for tests of sites that span several hosts (`example.test` and
 * `www.example.test`): while installed, Node's resolver answers 127.0.0.1 for the names given and
 * asks the system for every other. Sockets opened without a `lookup` of their own (the fetches of
 * a scrape, crawl or map whose addresses are not restricted to public ones) resolve through it.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';

type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Resolves `names` to 127.0.0.1 until the returned function is called. */
export function resolveToLoopback(names: readonly string[]): () => void {
  const original = dns.lookup;
  const loopback = new Set(names.map((name) => name.toLowerCase()));
  const lookup = (hostname: string, options: LookupOptions | number | Callback, callback?: Callback) => {
    const done = (typeof options === 'function' ? options : callback)!;
    const settings: LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    if (!loopback.has(hostname.toLowerCase())) return (original as (...args: unknown[]) => void)(hostname, settings, done);
    process.nextTick(() => (settings.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)));
  };
  (dns as { lookup: unknown }).lookup = lookup;
  return () => {
    dns.lookup = original;
  };
}
