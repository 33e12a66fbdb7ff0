/**
 * A real PostgreSQL server for tests: Debian's package (`apt-get install postgresql`), started
 * by the test file in a temporary directory with initdb and pg_ctl, on a free port of
 * 127.0.0.1, and stopped when the file's tests end. PostgreSQL refuses to run as root: as root,
 * the server runs as the `postgres` system user the package creates. Where the package is
 * missing, tests that need it are skipped with the reason (POSTGRES_SKIP).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { openDatabase, type Db } from '../../src/engine/store/database.js';
import { tempDir } from './files.js';

/** The binaries of the newest PostgreSQL installed the Debian way, or those on PATH. */
function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) if (existsSync(join(base, version, 'bin', 'initdb'))) return join(base, version, 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found ? join(found, '..') : undefined;
}

/** The uid and gid of the `postgres` system user, from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const BIN = binDir();
const AS_ROOT = process.getuid?.() === 0;
const RUN_AS = AS_ROOT ? postgresUser() : undefined;

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const POSTGRES_SKIP: string | undefined = !BIN
  ? 'PostgreSQL is not installed (apt-get install postgresql); .ci/run installs it'
  : AS_ROOT && !RUN_AS
    ? 'running as root, and there is no postgres user to run the server as (apt-get install postgresql creates it)'
    : undefined;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(BIN!, command), args, { stdio: ['ignore', 'pipe', 'pipe'], ...(RUN_AS && { uid: RUN_AS.uid, gid: RUN_AS.gid }) });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`))));
  });
}

export interface PostgresServer {
  port: number;
  /** The address of a database of the server (the maintenance database `postgres` without a name). */
  url(database?: string): string;
  /** A new, empty database; returns its address. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

let started: Promise<PostgresServer> | undefined;
let databases = 0;

/** The test file's server, started at the first call; stopped by stopPostgresServer or at exit. */
export function postgresServer(): Promise<PostgresServer> {
  if (POSTGRES_SKIP) throw new Error(POSTGRES_SKIP);
  started ??= startServer();
  return started;
}

export async function stopPostgresServer(): Promise<void> {
  const server = started;
  started = undefined;
  await (await server?.catch(() => undefined))?.stop();
}

async function startServer(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'webwatch-pg-'));
  if (RUN_AS) chownSync(dir, RUN_AS.uid, RUN_AS.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  // Trust on loopback only, no fsync: a throwaway server that starts in a second.
  await run('initdb', ['-D', data, '-A', 'trust', '-U', 'webwatch', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  await run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
  const stopSync = () => {
    spawnSync(join(BIN!, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'], { stdio: 'ignore', ...(RUN_AS && { uid: RUN_AS.uid, gid: RUN_AS.gid }) });
    rmSync(dir, { recursive: true, force: true });
  };
  // A test process that ends without its after() hook still stops its server.
  process.once('exit', stopSync);
  const url = (database = 'postgres') => `postgres://webwatch@127.0.0.1:${port}/${database}`;
  const server: PostgresServer = {
    port,
    url,
    async createDatabase() {
      const name = `webwatch_test_${process.pid}_${++databases}`;
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      process.removeListener('exit', stopSync);
      stopSync();
    },
  };
  return server;
}

export type DatabaseKindUnderTest = 'sqlite' | 'postgres';

/**
 * Declares `body`'s tests twice: on a SQLite file and on PostgreSQL (skipped, with the reason,
 * where PostgreSQL is not installed). `open` gives a fresh, migrated database at each call;
 * `location` a fresh address without opening it.
 */
export function forEachDatabase(
  title: string,
  body: (context: { kind: DatabaseKindUnderTest; open(): Promise<Db>; location(): Promise<string> }) => void,
): void {
  describe(`${title} (SQLite)`, () => {
    const location = async () => join(tempDir(), 'webwatch.db');
    body({ kind: 'sqlite', location, open: async () => openDatabase(await location()) });
  });
  describe(`${title} (PostgreSQL)`, { skip: POSTGRES_SKIP }, () => {
    after(stopPostgresServer);
    const location = async () => (await postgresServer()).createDatabase();
    body({ kind: 'postgres', location, open: async () => openDatabase(await location()) });
  });
}
