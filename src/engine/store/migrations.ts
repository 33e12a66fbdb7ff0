/**
 * Versioned schema migrations of the engine's store. Each runs once, in order, in a
 * transaction; SQLite's `PRAGMA user_version`, or PostgreSQL's table webwatch_schema, records
 * how far a database has come. Never edit a released migration: add the next one.
 *
 * Versions 1 to 11 were written for SQLite alone; a PostgreSQL database starts from their
 * result in one step (postgres-baseline.ts). Every later migration is written once, with the
 * query layer's schema builder, and runs on both: MIGRATIONS at the end of this file.
 */
import type { Kysely } from 'kysely';

export const SQLITE_HISTORY: readonly { version: number; description: string; sql: string }[] = [
  {
    version: 1,
    description: 'scrape cache and change-tracking snapshots',
    sql: `
      CREATE TABLE scrape_cache (
        cache_key   TEXT PRIMARY KEY,
        url         TEXT NOT NULL,
        document    TEXT NOT NULL,
        cached_at   INTEGER NOT NULL
      );
      CREATE INDEX scrape_cache_cached_at ON scrape_cache (cached_at);

      CREATE TABLE tracked_pages (
        url         TEXT NOT NULL,
        tag         TEXT NOT NULL DEFAULT '',
        markdown    TEXT NOT NULL,
        scraped_at  INTEGER NOT NULL,
        PRIMARY KEY (url, tag)
      );
    `,
  },
  {
    version: 2,
    description: 'monitors, checks, page results and page snapshots',
    sql: `
      CREATE TABLE monitors (
        id                  TEXT PRIMARY KEY,
        team                TEXT NOT NULL,
        name                TEXT NOT NULL,
        status              TEXT NOT NULL CHECK (status IN ('active', 'paused', 'deleted')),
        definition          TEXT NOT NULL,
        created_at          TEXT NOT NULL,
        updated_at          TEXT NOT NULL,
        last_run_at         TEXT,
        next_run_at         TEXT,
        current_check_id    TEXT,
        last_check_summary  TEXT
      );
      -- Names identify monitors for apply: unique per team among those not deleted.
      CREATE UNIQUE INDEX monitors_team_name ON monitors (team, name) WHERE status != 'deleted';

      CREATE TABLE checks (
        id            TEXT PRIMARY KEY,
        monitor_id    TEXT NOT NULL REFERENCES monitors (id),
        status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'partial', 'failed')),
        trigger       TEXT NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
        started_at    TEXT,
        finished_at   TEXT,
        summary       TEXT,
        error         TEXT,
        owner_pid     INTEGER
      );
      CREATE INDEX checks_monitor ON checks (monitor_id, started_at);

      CREATE TABLE page_results (
        check_id           TEXT NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
        position           INTEGER NOT NULL,
        target_id          TEXT NOT NULL,
        url                TEXT NOT NULL,
        status             TEXT NOT NULL CHECK (status IN ('new', 'same', 'changed', 'removed', 'error')),
        status_code        INTEGER,
        previous_scrape_id TEXT,
        current_scrape_id  TEXT,
        diff               TEXT,
        judgment           TEXT,
        error              TEXT,
        PRIMARY KEY (check_id, position)
      );

      CREATE TABLE snapshots (
        scrape_id    TEXT PRIMARY KEY,
        monitor_id   TEXT NOT NULL REFERENCES monitors (id),
        target_id    TEXT NOT NULL,
        url          TEXT NOT NULL,
        markdown     TEXT NOT NULL,
        scraped_at   TEXT NOT NULL
      );
      CREATE INDEX snapshots_page ON snapshots (monitor_id, target_id, url, scraped_at);
    `,
  },
  {
    version: 3,
    description: 'snapshot fingerprints, so that unchanged pages skip conversion and comparison',
    sql: `
      ALTER TABLE snapshots ADD COLUMN fingerprint TEXT;
      ALTER TABLE snapshots ADD COLUMN content_hash TEXT;
    `,
  },
  {
    version: 4,
    description: 'API keys of webwatch serve, stored hashed',
    sql: `
      CREATE TABLE api_keys (
        id          TEXT PRIMARY KEY,
        team        TEXT NOT NULL,
        key_hash    TEXT NOT NULL UNIQUE,
        created_at  TEXT NOT NULL,
        revoked_at  TEXT
      );
    `,
  },
  {
    version: 5,
    description: 'the schedule slot a check was started for, and skipped slots as checks',
    // SQLite cannot change a CHECK constraint in place: the table is rebuilt (foreign keys are
    // off while migrations run, so page results stay).
    sql: `
      CREATE TABLE checks_new (
        id             TEXT PRIMARY KEY,
        monitor_id     TEXT NOT NULL REFERENCES monitors (id),
        status         TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'partial', 'failed', 'skipped_overlap')),
        trigger        TEXT NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
        scheduled_for  TEXT,
        started_at     TEXT,
        finished_at    TEXT,
        summary        TEXT,
        error          TEXT,
        owner_pid      INTEGER
      );
      INSERT INTO checks_new (id, monitor_id, status, trigger, started_at, finished_at, summary, error, owner_pid)
        SELECT id, monitor_id, status, trigger, started_at, finished_at, summary, error, owner_pid FROM checks;
      DROP TABLE checks;
      ALTER TABLE checks_new RENAME TO checks;
      CREATE INDEX checks_monitor ON checks (monitor_id, started_at);
    `,
  },
  {
    version: 6,
    description: 'the outbox of notifications: webhook deliveries written with their check',
    sql: `
      CREATE TABLE outbox (
        id               TEXT PRIMARY KEY,
        monitor_id       TEXT NOT NULL,
        check_id         TEXT NOT NULL,
        channel          TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
        event            TEXT NOT NULL,
        target           TEXT NOT NULL,
        headers          TEXT NOT NULL DEFAULT '{}',
        body             TEXT NOT NULL,
        status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  TEXT NOT NULL,
        last_error       TEXT,
        created_at       TEXT NOT NULL,
        delivered_at     TEXT
      );
      CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
      CREATE INDEX outbox_check ON outbox (check_id);
    `,
  },
  {
    version: 7,
    description: 'everything stored belongs to a team: scrape cache, change tracking, outbox; crawl jobs stored; keys for the engine team',
    // The cache and tracking histories had no owner: which team wrote a row cannot be known, so
    // they are dropped rather than guessed (a cache refills; a tracked URL is "new" once more).
    // Outbox rows take their monitor's team. A delivery remembers the private-address rule of the
    // process that queued it: the command line's (team local) allowed private targets.
    sql: `
      DROP TABLE scrape_cache;
      CREATE TABLE scrape_cache (
        team        TEXT NOT NULL,
        cache_key   TEXT NOT NULL,
        url         TEXT NOT NULL,
        document    TEXT NOT NULL,
        cached_at   INTEGER NOT NULL,
        PRIMARY KEY (team, cache_key)
      );
      CREATE INDEX scrape_cache_cached_at ON scrape_cache (cached_at);

      DROP TABLE tracked_pages;
      CREATE TABLE tracked_pages (
        team        TEXT NOT NULL,
        url         TEXT NOT NULL,
        tag         TEXT NOT NULL DEFAULT '',
        scope       TEXT NOT NULL DEFAULT '',
        markdown    TEXT NOT NULL,
        scraped_at  INTEGER NOT NULL,
        PRIMARY KEY (team, url, tag, scope)
      );

      ALTER TABLE outbox ADD COLUMN team TEXT NOT NULL DEFAULT 'local';
      UPDATE outbox SET team = coalesce((SELECT team FROM monitors WHERE monitors.id = outbox.monitor_id), 'local');
      ALTER TABLE outbox ADD COLUMN private_targets_allowed INTEGER NOT NULL DEFAULT 0;
      UPDATE outbox SET private_targets_allowed = 1 WHERE team = 'local';

      ALTER TABLE api_keys ADD COLUMN grants_local_team INTEGER NOT NULL DEFAULT 0;

      CREATE TABLE crawl_jobs (
        id            TEXT PRIMARY KEY,
        team          TEXT NOT NULL,
        url           TEXT NOT NULL,
        options       TEXT,
        status        TEXT NOT NULL CHECK (status IN ('scraping', 'completed', 'failed', 'cancelled')),
        total         INTEGER NOT NULL DEFAULT 0,
        completed     INTEGER NOT NULL DEFAULT 0,
        credits_used  INTEGER NOT NULL DEFAULT 0,
        error         TEXT,
        created_at    TEXT NOT NULL,
        expires_at    TEXT NOT NULL,
        owner_pid     INTEGER
      );
      CREATE INDEX crawl_jobs_team ON crawl_jobs (team, created_at);
      CREATE INDEX crawl_jobs_expires ON crawl_jobs (expires_at);

      CREATE TABLE crawl_pages (
        job_id      TEXT NOT NULL REFERENCES crawl_jobs (id) ON DELETE CASCADE,
        position    INTEGER NOT NULL,
        url         TEXT NOT NULL,
        document    TEXT,
        error       TEXT,
        error_code  TEXT,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (job_id, position)
      );
    `,
  },
  {
    version: 8,
    description: 'agent jobs, their trace events and their artifact snapshots',
    sql: `
      CREATE TABLE agent_jobs (
        id                   TEXT PRIMARY KEY,
        team                 TEXT NOT NULL,
        prompt               TEXT NOT NULL,
        request              TEXT NOT NULL,
        status               TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
        outcome              TEXT CHECK (outcome IN ('succeeded', 'failed', 'cancelled', 'refused', 'credit_limit_reached')),
        error                TEXT,
        data                 TEXT,
        credits_used         INTEGER NOT NULL DEFAULT 0,
        model                TEXT,
        cancel_requested_at  TEXT,
        created_at           TEXT NOT NULL,
        finished_at          TEXT,
        expires_at           TEXT NOT NULL,
        owner_pid            INTEGER
      );
      CREATE INDEX agent_jobs_team ON agent_jobs (team, created_at);
      CREATE INDEX agent_jobs_expires ON agent_jobs (expires_at);

      CREATE TABLE agent_events (
        job_id    TEXT NOT NULL REFERENCES agent_jobs (id) ON DELETE CASCADE,
        team      TEXT NOT NULL,
        sequence  INTEGER NOT NULL,
        event     TEXT NOT NULL,
        PRIMARY KEY (job_id, sequence)
      );

      CREATE TABLE agent_snapshots (
        job_id       TEXT NOT NULL REFERENCES agent_jobs (id) ON DELETE CASCADE,
        team         TEXT NOT NULL,
        snapshot_id  TEXT NOT NULL,
        content      TEXT NOT NULL,
        created_at   TEXT NOT NULL,
        PRIMARY KEY (job_id, snapshot_id)
      );
    `,
  },
  {
    version: 9,
    description: 'the usage ledger: credits and model tokens per team (and key, on serve), as the work is done',
    sql: `
      CREATE TABLE usage (
        id       INTEGER PRIMARY KEY,
        team     TEXT NOT NULL,
        key_id   TEXT,
        kind     TEXT NOT NULL,
        credits  INTEGER NOT NULL DEFAULT 0,
        tokens   INTEGER NOT NULL DEFAULT 0,
        at       TEXT NOT NULL
      );
      CREATE INDEX usage_team_at ON usage (team, at);
    `,
  },
  {
    version: 10,
    description: 'batch scrape jobs stored as crawl jobs are (a kind column); URLs robots.txt kept a crawl from',
    sql: `
      ALTER TABLE crawl_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'crawl' CHECK (kind IN ('crawl', 'batch'));
      ALTER TABLE crawl_jobs ADD COLUMN robots_blocked TEXT;
      CREATE INDEX crawl_jobs_team_kind ON crawl_jobs (team, kind, status);
    `,
  },
  {
    version: 11,
    description: 'snapshots that record a page as gone, so that a check reports it removed once',
    sql: `
      ALTER TABLE snapshots ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
    `,
  },
];

export interface Migration {
  version: number;
  description: string;
  /** The same on SQLite and PostgreSQL: the schema builder writes each one's DDL. */
  // biome-ignore lint/suspicious/noExplicitAny: a migration runs on the schema of any version, which the tables' types do not describe
  up(db: Kysely<any>): Promise<void>;
}

/** Adds the lease columns of work that any worker may take over (see leases.ts). */
// biome-ignore lint/suspicious/noExplicitAny: a migration runs on the schema of any version, which the tables' types do not describe
const addLease = (db: Kysely<any>, table: string) =>
  db.schema
    .alterTable(table)
    .addColumn('lease_owner', 'text')
    .execute()
    .then(() => db.schema.alterTable(table).addColumn('lease_expires_at', 'text').execute());

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 12,
    description: 'JSON extracted by a model, kept beside the markdown: changeTracking json mode and JSON monitors compare it field by field',
    async up(db) {
      await db.schema.alterTable('tracked_pages').addColumn('json', 'text').execute();
      await db.schema.alterTable('snapshots').addColumn('json', 'text').execute();
      await db.schema.alterTable('page_results').addColumn('snapshot', 'text').execute();
      await db.schema.alterTable('checks').addColumn('credits', 'integer').execute();
    },
  },
  {
    version: 13,
    description: "the screenshot a check kept of a new or changed page (a file name under the team's artifacts/kept)",
    async up(db) {
      await db.schema.alterTable('page_results').addColumn('screenshot', 'text').execute();
    },
  },
  {
    version: 14,
    description: 'leases on running work, so that another worker takes over from one that stopped; per-key request counts shared by every serve process',
    async up(db) {
      for (const table of ['checks', 'outbox', 'crawl_jobs', 'agent_jobs']) await addLease(db, table);
      await db.schema.createIndex('checks_running').on('checks').columns(['status', 'lease_expires_at']).execute();
      await db.schema
        .createTable('rate_windows')
        .addColumn('key_id', 'text', (column) => column.notNull())
        .addColumn('window_start', 'bigint', (column) => column.notNull())
        .addColumn('requests', 'integer', (column) => column.notNull())
        .addPrimaryKeyConstraint('rate_windows_key', ['key_id', 'window_start'])
        .execute();
    },
  },
  {
    version: 15,
    description:
      'work queued for any worker (crawls, batches, agent jobs, manual checks): the key that asked, counted against its concurrency, and what the run needs of the request',
    async up(db) {
      for (const table of ['checks', 'crawl_jobs', 'agent_jobs']) {
        await db.schema.alterTable(table).addColumn('key_id', 'text').execute();
        await db.schema.alterTable(table).addColumn('run_context', 'text').execute();
        // Claims look for unclaimed rows; the concurrency limit counts a key's unfinished ones.
        await db.schema.createIndex(`${table}_lease_owner`).on(table).column('lease_owner').execute();
        await db.schema.createIndex(`${table}_key_status`).on(table).columns(['key_id', 'status']).execute();
      }
    },
  },
  {
    version: 16,
    description: "webhooks of crawls and batch scrapes: the job's webhook kept with it, its deliveries in the outbox under its id",
    async up(db) {
      const { SqliteAdapter, sql } = await import('kysely');
      if (db.getExecutor().adapter instanceof SqliteAdapter) {
        // SQLite cannot drop NOT NULL in place: the table is rebuilt, its rows kept in the order written.
        await sql
          .raw(`
          CREATE TABLE outbox_new (
            id                       TEXT PRIMARY KEY,
            team                     TEXT NOT NULL DEFAULT 'local',
            private_targets_allowed  INTEGER NOT NULL DEFAULT 0,
            monitor_id               TEXT,
            check_id                 TEXT,
            job_id                   TEXT,
            channel                  TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
            event                    TEXT NOT NULL,
            target                   TEXT NOT NULL,
            headers                  TEXT NOT NULL DEFAULT '{}',
            body                     TEXT NOT NULL,
            status                   TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
            attempts                 INTEGER NOT NULL DEFAULT 0,
            next_attempt_at          TEXT NOT NULL,
            last_error               TEXT,
            created_at               TEXT NOT NULL,
            delivered_at             TEXT,
            lease_owner              TEXT,
            lease_expires_at         TEXT
          )`)
          .execute(db);
        await sql
          .raw(`
          INSERT INTO outbox_new (id, team, private_targets_allowed, monitor_id, check_id, channel, event, target, headers, body, status, attempts,
                                  next_attempt_at, last_error, created_at, delivered_at, lease_owner, lease_expires_at)
            SELECT id, team, private_targets_allowed, monitor_id, check_id, channel, event, target, headers, body, status, attempts,
                   next_attempt_at, last_error, created_at, delivered_at, lease_owner, lease_expires_at FROM outbox ORDER BY rowid`)
          .execute(db);
        await sql.raw('DROP TABLE outbox').execute(db);
        await sql.raw('ALTER TABLE outbox_new RENAME TO outbox').execute(db);
        await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();
        await db.schema.createIndex('outbox_check').on('outbox').column('check_id').execute();
      } else {
        await db.schema
          .alterTable('outbox')
          .alterColumn('monitor_id', (column) => column.dropNotNull())
          .execute();
        await db.schema
          .alterTable('outbox')
          .alterColumn('check_id', (column) => column.dropNotNull())
          .execute();
        await db.schema.alterTable('outbox').addColumn('job_id', 'text').execute();
      }
      await db.schema.createIndex('outbox_job').on('outbox').column('job_id').execute();
      await db.schema.alterTable('crawl_jobs').addColumn('webhook', 'text').execute();
    },
  },
  {
    version: 17,
    description:
      'scrape documents kept a day for GET /v2/scrape/{id}: those of POST /v2/scrape in a table of their own, crawl and batch pages by the scrapeId of their row; jobs under zero data retention',
    async up(db) {
      await db.schema
        .createTable('scrape_documents')
        .addColumn('scrape_id', 'text', (column) => column.primaryKey())
        .addColumn('team', 'text', (column) => column.notNull())
        .addColumn('document', 'text', (column) => column.notNull())
        .addColumn('expires_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('scrape_documents_expires').on('scrape_documents').column('expires_at').execute();
      await db.schema.alterTable('crawl_pages').addColumn('scrape_id', 'text').execute();
      await db.schema.createIndex('crawl_pages_scrape_id').on('crawl_pages').column('scrape_id').execute();
      await db.schema
        .alterTable('crawl_jobs')
        .addColumn('zero_data_retention', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  },
  {
    version: 18,
    description: 'extract jobs beside agent jobs: the kind of each job, so that each route reads only its own',
    async up(db) {
      await db.schema
        .alterTable('agent_jobs')
        .addColumn('kind', 'text', (column) => column.notNull().defaultTo('agent'))
        .execute();
    },
  },
  {
    version: 19,
    description: "page slots: the page scrapes each team's crawls and batch scrapes run at once, held by workers under leases",
    async up(db) {
      await db.schema
        .createTable('page_slots')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('team', 'text', (column) => column.notNull())
        .addColumn('job_id', 'text', (column) => column.notNull())
        .addColumn('holder', 'text', (column) => column.notNull())
        .addColumn('expires_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('page_slots_team').on('page_slots').columns(['team', 'expires_at']).execute();
    },
  },
  {
    version: 20,
    description: "webhooks of agent and extract jobs: the job's webhook kept with it, apart from its request",
    async up(db) {
      await db.schema.alterTable('agent_jobs').addColumn('webhook', 'text').execute();
    },
  },
  {
    version: 21,
    description: 'idempotency keys of job starts, taken once per team',
    async up(db) {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('team', 'text', (column) => column.notNull())
        .addColumn('key', 'text', (column) => column.notNull())
        .addColumn('taken_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_team_key', ['team', 'key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_taken_at').on('idempotency_keys').column('taken_at').execute();
    },
  },
  {
    version: 22,
    description: 'why a same page is the same though its text differs: the volatile parts and the raw diff of a page result',
    async up(db) {
      await db.schema.alterTable('page_results').addColumn('noise', 'text').execute();
    },
  },
  {
    version: 23,
    description: 'the private-address rule a monitor was saved under, which its checks keep whoever runs them; monitors saved before carry none (1), as before',
    async up(db) {
      await db.schema
        .alterTable('monitors')
        .addColumn('private_targets_allowed', 'integer', (column) => column.notNull().defaultTo(1))
        .execute();
    },
  },
];

/**
 * Leases were first written as version 12, before the JSON and screenshot columns took 12 and 13.
 * A database of that order is at version 12 with the table rate_windows; it gets 12 and 13's
 * columns and goes on from 14.
 */
export const LEASES_FIRST = { version: 12, table: 'rate_windows', missing: [12, 13], resumeAt: 14 } as const;

/** The schema version this webwatch writes. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? SQLITE_HISTORY[SQLITE_HISTORY.length - 1]!.version;
