/**
 * Sharing slots between the parties that wait for them: the next slot goes to the party with the
 * least work running (counting what this pick has given it), its oldest waiting item first, and
 * no party holds more than its cap of this process's slots. A party that has waited behind
 * another's twenty items is served before the other's twenty-first.
 */
export interface FairShareOptions<T> {
  /** Slots free now. */
  room: number;
  /** Slots of this process one party may hold at most. */
  capPerParty: number;
  partyOf(item: T): string;
  /** What each party runs in this process now (the cap counts these). */
  runningHere: ReadonlyMap<string, number>;
  /** What each party runs wherever it runs (the order counts these); this process's when omitted. */
  runningEverywhere?: ReadonlyMap<string, number>;
}

interface PartyQueue<T> {
  items: T[];
  /** Where each item stood among all the items: the older waits less long. */
  positions: number[];
  next: number;
  here: number;
  load: number;
}

/** Up to `room` of `items` (each party's oldest first, as given), in the order they should start. */
export function pickFairly<T>(items: readonly T[], options: FairShareOptions<T>): T[] {
  const everywhere = options.runningEverywhere ?? options.runningHere;
  const queues = new Map<string, PartyQueue<T>>();
  items.forEach((item, index) => {
    const party = options.partyOf(item);
    let queue = queues.get(party);
    if (!queue) {
      const here = options.runningHere.get(party) ?? 0;
      queue = { items: [], positions: [], next: 0, here, load: Math.max(here, everywhere.get(party) ?? 0) };
      queues.set(party, queue);
    }
    queue.items.push(item);
    queue.positions.push(index);
  });
  const picked: T[] = [];
  while (picked.length < options.room) {
    let best: PartyQueue<T> | undefined;
    for (const queue of queues.values()) {
      if (queue.next >= queue.items.length || queue.here >= options.capPerParty) continue;
      // The least loaded party first; between equals, the one whose next item has waited longest.
      if (!best || queue.load < best.load || (queue.load === best.load && queue.positions[queue.next]! < best.positions[best.next]!)) best = queue;
    }
    if (!best) break;
    picked.push(best.items[best.next++]!);
    best.here += 1;
    best.load += 1;
  }
  return picked;
}

/**
 * The cap of one party among `parties` sharing `slots`: all of them for a lone party; otherwise a
 * quarter is kept back, so that a party that comes with its first item finds a slot free at once
 * while another holds all it may.
 */
export function capPerParty(slots: number, parties: number): number {
  return parties <= 1 ? slots : Math.max(1, slots - Math.floor(slots / 4));
}

/** How many items each party has among `items`. */
export function countByParty<T>(items: Iterable<T>, partyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(partyOf(item), (counts.get(partyOf(item)) ?? 0) + 1);
  return counts;
}
