/**
 * The monitor resource of the v2 interface (spec 2.6) as every side sees it: a stored
 * monitor's definition with its state and schedule. Types only: the engine builds it from its
 * store, backends, core and commands read it here.
 */
import type { MonitorSummary, Target } from '../spec/monitor.js';

export interface MonitorResource {
  id: string;
  name: string;
  status: 'active' | 'paused' | 'deleted';
  goal: string | null;
  judgeEnabled: boolean;
  schedule: { cron: string; timezone: string };
  targets: Target[];
  notification?: unknown;
  webhook?: unknown;
  retentionDays: number;
  createdAt: string;
  updatedAt: string;
  lastRunAt: string | null;
  nextRunAt: string | null;
  currentCheckId: string | null;
  /** Zeros before the first check (§2.6 types it MonitorSummary, never null). */
  lastCheckSummary: MonitorSummary;
  estimatedCreditsPerMonth: number | null;
}
