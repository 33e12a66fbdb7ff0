/**
 * The crawl's queue of pages still to visit, kept per host: the next page to start is the
 * earliest queued whose host has a free slot. One queue walked from the front did the same,
 * but parsed every waiting URL again on each start (a 1,000-page crawl of one host spent more
 * time there than on its SQLite cache); here a start costs one look at each host's first page.
 */
export interface FrontierItem {
  url: string;
  depth: number;
  /** The URL's host (with its port), worked out once when the page is queued. */
  host: string;
}

interface HostQueue {
  items: (FrontierItem & { order: number })[];
  /** Index of the first item not yet taken: taking from the front costs no copy. */
  head: number;
}

export class CrawlFrontier {
  private readonly hosts = new Map<string, HostQueue>();
  /** Hosts with pages waiting, in no particular order. */
  private readonly waiting = new Set<HostQueue>();
  private added = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(item: FrontierItem): void {
    let queue = this.hosts.get(item.host);
    if (!queue) {
      queue = { items: [], head: 0 };
      this.hosts.set(item.host, queue);
    }
    queue.items.push({ ...item, order: this.added++ });
    this.waiting.add(queue);
    this.count++;
  }

  /** The earliest page queued whose host `hasRoom` allows, taken off the queue; undefined when none. */
  take(hasRoom: (host: string) => boolean = () => true): FrontierItem | undefined {
    let best: HostQueue | undefined;
    for (const queue of this.waiting) {
      const first = queue.items[queue.head]!;
      if ((best === undefined || first.order < best.items[best.head]!.order) && hasRoom(first.host)) best = queue;
    }
    if (!best) return undefined;
    const { order: _order, ...item } = best.items[best.head]!;
    best.head++;
    this.count--;
    if (best.head === best.items.length) {
      best.items = [];
      best.head = 0;
      this.waiting.delete(best);
    } else if (best.head >= 1024 && best.head * 2 >= best.items.length) {
      // Taken items are dropped now and then, so a long crawl does not keep every URL it queued.
      best.items = best.items.slice(best.head);
      best.head = 0;
    }
    return item;
  }
}
