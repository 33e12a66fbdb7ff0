/**
 * Checks and their pages as every side sees them: the engine's store, the local and remote
 * backends, serve's answers and the command line. Types only, so that whoever reads a check
 * depends on this module and not on the store that writes it.
 */
import type { JsonFieldDiff, PageDiff } from './diff.js';
import type { MonitorSummary } from '../spec/monitor.js';

export type CheckStatus = 'queued' | 'running' | 'completed' | 'partial' | 'failed' | 'skipped_overlap';
export type PageStatus = 'new' | 'same' | 'changed' | 'removed' | 'error';

export interface PageResult {
  url: string;
  targetId: string;
  status: PageStatus;
  statusCode: number | null;
  previousScrapeId: string | null;
  currentScrapeId: string | null;
  /** The markdown's diff; for a target that extracts JSON, `{json}` of its changed fields (and the markdown's `text` in mixed mode). */
  diff: PageDiff | JsonPageDiff | null;
  judgment: Judgment | null;
  error: string | null;
  /**
   * A `same` page whose text differs from the last one only in volatile parts (a relative
   * time, a clock, a counter beside the article, an image's cache-busting address): why it is
   * the same, the parts, and the raw diff.
   */
  noise?: PageNoise;
  /** The JSON extracted this time, for a target that extracts JSON. */
  snapshot?: { json: unknown } | null;
  /**
   * The screenshot of a new or changed page, kept with the check: in the store its file name
   * under the team's `artifacts/kept`; in a check's answer its file URL (a URL of serve under serve).
   */
  screenshot?: string;
}

export interface PageNoise {
  reason: string;
  parts: { kind: 'relative time' | 'clock' | 'counter' | 'asset address' | 'link token' | 'rotating part'; before: string; after: string }[];
  diff: PageDiff;
}

/** The judge's verdict on a new or changed page: does the change matter for the monitor's goal? */
export interface Judgment {
  meaningful: boolean;
  confidence: 'high' | 'medium' | 'low';
  reason: string;
  meaningfulChanges: MeaningfulChange[];
}

export interface MeaningfulChange {
  type: 'added' | 'removed' | 'changed';
  before: string | null;
  after: string | null;
  reason: string;
}

export interface JsonPageDiff {
  text?: string;
  json: JsonFieldDiff;
}

export interface CheckRecord {
  id: string;
  monitorId: string;
  status: CheckStatus;
  trigger: 'manual' | 'scheduled';
  /** The schedule slot a scheduled check was started for. */
  scheduledFor: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Zeroed until the check has finished. */
  summary: MonitorSummary;
  error: string | null;
  /** Deliveries of the check's notifications, per channel; null when it has none. */
  notificationStatus: NotificationStatus | null;
  /** The embedded engine bills nothing: credits are counted (a page fetched is 1), never charged. */
  billingStatus: 'not_applicable';
  estimatedCredits: number | null;
  reservedCredits: number | null;
  /** Pages fetched, once the check has finished. */
  actualCredits: number | null;
  createdAt: string;
  updatedAt: string;
}

/** A page result as a check's answer carries it: with its id and time. */
export interface CheckPage extends PageResult {
  /** `<checkId>:<position>`, stable for the life of the check. */
  id: string;
  createdAt: string;
}

/** Per channel: deliveries by state, and the last error of one that failed or is being retried. */
export type NotificationStatus = Partial<
  Record<'webhook' | 'email', { pending: number; delivered: number; failed: number; lastError?: string; attempts?: number }>
>;

/** One delivery of a check, as `monitor check` shows it: no headers, no body. */
export interface DeliveryState {
  channel: 'webhook' | 'email';
  event: string;
  target: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastError: string | null;
}
