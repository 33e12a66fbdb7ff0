/**
 * One field over a monitor's checks (`monitor history --field`): the checks are read a few at a
 * time, as a remote API answers them, and the points come out oldest first whatever order the
 * answers arrive in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckService } from '../../src/services/interfaces.js';
import type { CheckRecord } from '../../src/contract/checks.js';
import { fieldHistory } from '../../src/core/history.js';

describe('a field over the checks', () => {
  it('reads the checks a few at a time and gives the points oldest first, however the answers come', async () => {
    const started = (i: number) => new Date(Date.UTC(2026, 10, 1 + i)).toISOString();
    const checks = Array.from(
      { length: 12 },
      (_, i) => ({ id: `c${i}`, status: 'completed', startedAt: started(i), createdAt: started(i), finishedAt: started(i) }) as unknown as CheckRecord,
    );
    let inFlight = 0;
    let most = 0;
    const backend: { checks: Pick<CheckService, 'list' | 'get'> } = {
      checks: {
        list: async () => [...checks].reverse(),
        get: (async (_monitor: string, id: string) => {
          inFlight++;
          most = Math.max(most, inFlight);
          const i = Number(id.slice(1));
          // Later checks answer sooner: the answers arrive out of order.
          await sleep(2 + (12 - i) * 3);
          inFlight--;
          return {
            pages: [
              { url: 'https://shop.example/plans', snapshot: { json: { price: 10 + i } } },
              { url: 'https://shop.example/about', snapshot: null },
            ],
          };
        }) as unknown as CheckService['get'],
      },
    };
    const points = await fieldHistory(backend, 'Plans', 'price', 12);
    assert.deepEqual(
      points.map((point) => point.value),
      Array.from({ length: 12 }, (_, i) => 10 + i),
    );
    assert.deepEqual(
      points.map((point) => point.checkId),
      checks.map((check) => check.id),
    );
    assert.ok(most > 1 && most <= 4, `${most} checks read at once`);
  });
});
