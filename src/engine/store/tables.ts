/**
 * The engine's tables as the query layer (Kysely) sees them, the same on SQLite and PostgreSQL:
 * times are ISO-8601 text (they sort as they compare), flags are 0 or 1, documents are JSON
 * text. A new column is added here and in one migration of migrations.ts;
 * test/engine/schema-agreement.test.ts checks that this file, SQLite's migrations and the
 * PostgreSQL baseline agree on every table and column.
 */
import type { Generated } from 'kysely';

type Flag = 0 | 1;

export interface Tables {
  monitors: {
    id: string;
    team: string;
    name: string;
    status: 'active' | 'paused' | 'deleted';
    definition: string;
    created_at: string;
    updated_at: string;
    last_run_at: string | null;
    next_run_at: string | null;
    current_check_id: string | null;
    last_check_summary: string | null;
    /** 0 when the monitor was saved under the rule that refuses private addresses (serve, mcp --http): its checks keep it. */
    private_targets_allowed: Generated<Flag>;
  };
  checks: {
    id: string;
    monitor_id: string;
    status: 'queued' | 'running' | 'completed' | 'partial' | 'failed' | 'skipped_overlap';
    trigger: 'manual' | 'scheduled';
    scheduled_for: string | null;
    started_at: string | null;
    finished_at: string | null;
    summary: string | null;
    error: string | null;
    owner_pid: number | null;
    /** What the check's pages cost (null for checks older than version 12: they count 1 a page). */
    credits: number | null;
    /** Which worker holds the check (see leases.ts), and until when unless it renews. */
    lease_owner: string | null;
    lease_expires_at: string | null;
    /** The API key whose request queued this work (see work-queue.ts), and what its run needs of that request. */
    key_id: string | null;
    run_context: string | null;
  };
  page_results: {
    check_id: string;
    position: number;
    target_id: string;
    url: string;
    status: 'new' | 'same' | 'changed' | 'removed' | 'error';
    status_code: number | null;
    previous_scrape_id: string | null;
    current_scrape_id: string | null;
    diff: string | null;
    judgment: string | null;
    error: string | null;
    /** A JSON page's extracted fields, kept with the result (JSON text). */
    snapshot: string | null;
    /** The screenshot kept of a new or changed page: a file name under the team's artifacts/kept. */
    screenshot: string | null;
    /** A same page's volatile difference: reason, parts and raw diff (JSON text). */
    noise: string | null;
  };
  snapshots: {
    scrape_id: string;
    monitor_id: string;
    target_id: string;
    url: string;
    markdown: string;
    scraped_at: string;
    fingerprint: string | null;
    content_hash: string | null;
    gone: Generated<Flag>;
    /** The JSON a model extracted from the page, when the monitor compares JSON (JSON text). */
    json: string | null;
  };
  scrape_cache: {
    team: string;
    cache_key: string;
    url: string;
    document: string;
    cached_at: number;
  };
  tracked_pages: {
    team: string;
    url: string;
    tag: string;
    scope: string;
    markdown: string;
    scraped_at: number;
    /** The JSON extracted by changeTracking's json mode (JSON text). */
    json: string | null;
  };
  api_keys: {
    id: string;
    team: string;
    key_hash: string;
    created_at: string;
    revoked_at: string | null;
    grants_local_team: Generated<Flag>;
  };
  outbox: {
    id: string;
    team: string;
    private_targets_allowed: Flag;
    /** A monitor's deliveries name its monitor and check; a crawl's or batch scrape's, its job. */
    monitor_id: string | null;
    check_id: string | null;
    job_id: string | null;
    channel: 'webhook' | 'email';
    event: string;
    target: string;
    headers: string;
    body: string;
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    next_attempt_at: string;
    last_error: string | null;
    created_at: string;
    delivered_at: string | null;
    /** The worker delivering it now, and until when its claim holds. */
    lease_owner: string | null;
    lease_expires_at: string | null;
  };
  crawl_jobs: {
    id: string;
    team: string;
    kind: Generated<'crawl' | 'batch'>;
    url: string;
    options: string | null;
    status: 'scraping' | 'completed' | 'failed' | 'cancelled';
    total: Generated<number>;
    completed: Generated<number>;
    credits_used: Generated<number>;
    error: string | null;
    created_at: string;
    expires_at: string;
    owner_pid: number | null;
    robots_blocked: string | null;
    lease_owner: string | null;
    lease_expires_at: string | null;
    /** The API key whose request queued this work (see work-queue.ts), and what its run needs of that request. */
    key_id: string | null;
    run_context: string | null;
    /** The job's webhook (JSON text, job-webhooks.ts), or null without one. */
    webhook: string | null;
    /** 1: the job's pages are readable by no scrapeId, and each leaves the store once a status answer carried it. */
    zero_data_retention: Generated<Flag>;
  };
  crawl_pages: {
    job_id: string;
    position: number;
    url: string;
    document: string | null;
    error: string | null;
    error_code: string | null;
    created_at: string;
    /** The page's scrapeId, by which GET /v2/scrape/{id} reads its document; null for an error, or under zero data retention. */
    scrape_id: string | null;
  };
  /** Documents of POST /v2/scrape, as answered, kept a day for GET /v2/scrape/{id} (store/scrape-documents.ts). */
  scrape_documents: {
    scrape_id: string;
    team: string;
    document: string;
    expires_at: string;
  };
  agent_jobs: {
    id: string;
    team: string;
    prompt: string;
    request: string;
    status: 'processing' | 'completed' | 'failed';
    outcome: 'succeeded' | 'failed' | 'cancelled' | 'refused' | 'credit_limit_reached' | null;
    error: string | null;
    data: string | null;
    credits_used: Generated<number>;
    model: string | null;
    cancel_requested_at: string | null;
    created_at: string;
    finished_at: string | null;
    expires_at: string;
    owner_pid: number | null;
    lease_owner: string | null;
    lease_expires_at: string | null;
    /** The API key whose request queued this work (see work-queue.ts), and what its run needs of that request. */
    key_id: string | null;
    run_context: string | null;
    /** An agent job, or an extract job (POST /v2/extract), which runs on the same machinery. */
    kind: Generated<'agent' | 'extract'>;
    /** Its webhook (notify/job-webhooks.ts), headers included: kept apart from `request`, which answers show. */
    webhook: string | null;
  };
  agent_events: {
    job_id: string;
    team: string;
    sequence: number;
    event: string;
  };
  agent_snapshots: {
    job_id: string;
    team: string;
    snapshot_id: string;
    content: string;
    created_at: string;
  };
  usage: {
    id: Generated<number>;
    team: string;
    key_id: string | null;
    kind: string;
    credits: number;
    tokens: number;
    at: string;
  };
  /** Requests per key per one-minute window, counted by every serve process of the database. */
  rate_windows: {
    key_id: string;
    window_start: number;
    requests: number;
  };
  /** An idempotency key a team took for a job start (idempotency-keys.ts). */
  idempotency_keys: {
    team: string;
    key: string;
    taken_at: string;
  };
  /** A page scrape of a team's crawl or batch running now (page-slots.ts), under its worker's lease. */
  page_slots: {
    id: string;
    team: string;
    job_id: string;
    holder: string;
    expires_at: string;
  };
}
