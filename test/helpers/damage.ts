/** SQLite files damaged on purpose, in the middle, as a failing disk or a bad copy leaves them. */
import { closeSync, openSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import type { Db } from '../../src/engine/store/database.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';

/** The byte a damaged page is filled with: no b-tree page begins with it (it is no page type). */
const GARBAGE = 0x5a;

/**
 * Overwrites a leaf page of `tree` (a table or an index) halfway through it, and returns the
 * page's number. What the write-ahead log holds is written into the file first, so that the
 * page overwritten is the one SQLite reads.
 */
export function damagePage(path: string, tree: string): number {
  const raw = new Database(path);
  let page: number;
  let size: number;
  try {
    raw.pragma('wal_checkpoint(TRUNCATE)');
    const leaves = raw.prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno").pluck().all(tree) as number[];
    if (leaves.length < 3) throw new Error(`${tree} has ${leaves.length} leaf pages: too few to damage one in the middle`);
    page = leaves[Math.floor(leaves.length / 2)]!;
    size = raw.pragma('page_size', { simple: true }) as number;
  } finally {
    raw.close();
  }
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.alloc(size, GARBAGE), 0, size, (page - 1) * size);
  } finally {
    closeSync(fd);
  }
  return page;
}

/** `count` monitors of `team`, each with a long goal, so that the monitors table spans many pages. */
export async function manyMonitors(db: Db, team: string, count = 60): Promise<void> {
  const monitors = monitorStore(db);
  for (let i = 0; i < count; i++) {
    const definition = {
      name: `${team} page ${i}`,
      goal: `Tell me when section ${i} changes. ${'Watch the prices and the terms. '.repeat(50)}`,
      judgeEnabled: false,
      retentionDays: 30,
      schedule: { cron: '0 * * * *', timezone: 'UTC' },
      targets: [{ type: 'scrape', urls: [`https://example.com/${i}`] }],
    } as unknown as NormalizedMonitor;
    await monitors.insert(team, definition, new Date('2026-01-01T00:00:00Z'));
  }
}
