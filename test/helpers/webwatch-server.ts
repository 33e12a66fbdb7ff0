/** `webwatch serve`'s server in this process, on a fresh database and a free port of 127.0.0.1. */
import { keyStore } from '../../src/engine/keys/key-store.js';
import { databasePath, openDatabase, type Db } from '../../src/engine/store/database.js';
import { buildServer, SERVER_DEFAULTS, type ServerOptions, type WebwatchServer } from '../../src/server/app.js';
import { tempDir } from './files.js';

export interface ServingWebwatch {
  server: WebwatchServer;
  /** The server's address, without /v2. */
  origin: string;
  /** The API's base, ending in /v2. */
  url: string;
  db: Db;
  keys: ReturnType<typeof keyStore>;
  /** Drains the server and closes its database. */
  stop(): Promise<void>;
}

/** Serves a fresh engine home, or `home` to share one with the command line or an earlier server. */
export async function serveWebwatch(options: Partial<ServerOptions> & { home?: string } = {}): Promise<ServingWebwatch> {
  const { home = tempDir(), ...serverOptions } = options;
  const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }), { readConnection: true });
  const server = buildServer({
    db, version: 'test', env: { WEBWATCH_HOME: home }, now: () => new Date(), allowPrivateTargets: true,
    bodyLimit: SERVER_DEFAULTS.bodyLimit, rateLimitPerMinute: SERVER_DEFAULTS.rateLimitPerMinute, concurrencyPerKey: SERVER_DEFAULTS.concurrencyPerKey,
    ...serverOptions,
  });
  const origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    server, origin, url: `${origin}/v2`, db, keys: keyStore(db),
    async stop() {
      await server.drain();
      await db.close();
    },
  };
}
