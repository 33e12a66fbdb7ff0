/** The monitor resource of the v2 interface (spec 2.6), from a stored monitor. */
import { estimatedCreditsPerMonth } from './credits.js';
import type { StoredMonitor } from './monitor-store.js';

export type { MonitorResource } from '../../contract/monitor.js';
import type { MonitorResource } from '../../contract/monitor.js';

/** The summary of a monitor never checked: §2.6 types it MonitorSummary, not nullable. */
const NO_CHECK_YET = Object.freeze({ changed: 0, error: 0, new: 0, removed: 0, same: 0, totalPages: 0 });

export function monitorResource(monitor: StoredMonitor, now: Date): MonitorResource {
  const d = monitor.definition;
  return {
    id: monitor.id,
    name: d.name,
    status: monitor.status,
    goal: d.goal,
    judgeEnabled: d.judgeEnabled,
    schedule: d.schedule,
    targets: d.targets,
    ...(d.notification && { notification: d.notification }),
    ...(d.webhook && { webhook: d.webhook }),
    retentionDays: d.retentionDays,
    createdAt: monitor.createdAt,
    updatedAt: monitor.updatedAt,
    lastRunAt: monitor.lastRunAt,
    nextRunAt: monitor.nextRunAt,
    currentCheckId: monitor.currentCheckId,
    lastCheckSummary: monitor.lastCheckSummary ?? NO_CHECK_YET,
    // Worked out when read (JSON output reads it): counting runs in the schedule's time zone
    // loads ICU's calendar data, some 20 ms, which a list printed for people never shows.
    get estimatedCreditsPerMonth() {
      return monitor.status === 'deleted' ? null : estimatedCreditsPerMonth(d, now);
    },
  };
}
