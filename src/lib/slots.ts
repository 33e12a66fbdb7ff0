/**
 * A fixed number of slots, taken in the order asked for: what waits past its deadline, or is
 * aborted, leaves the line without a slot. For work that is heavy on the machine whoever asks
 * (a LibreOffice conversion maps gigabytes and takes a core for a second or more).
 */
export class SlotsTimedOut extends Error {
  constructor() {
    super('no slot came free before the deadline');
  }
}

interface Waiter {
  grant: (release: () => void) => void;
  fail: (error: Error) => void;
}

export class Slots {
  private free: number;
  private readonly line: Waiter[] = [];

  constructor(readonly size: number) {
    this.free = Math.max(1, size);
  }

  /** How many wait for a slot now. */
  get waiting(): number {
    return this.line.length;
  }

  /** A slot, and the function that gives it back (once; later calls do nothing). */
  take(deadline: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    if (Date.now() >= deadline) return Promise.reject(new SlotsTimedOut());
    return new Promise((resolve, reject) => {
      const leave = (error: Error) => {
        const at = this.line.indexOf(waiter);
        if (at >= 0) this.line.splice(at, 1);
        clear();
        reject(error);
      };
      const onAbort = () => leave(signal?.reason ?? new Error('aborted'));
      const timer = Number.isFinite(deadline) ? setTimeout(() => leave(new SlotsTimedOut()), Math.min(deadline - Date.now(), 2 ** 31 - 1)) : undefined;
      const clear = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        grant: (release) => {
          clear();
          resolve(release);
        },
        fail: leave,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.line.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.line.shift();
      if (next) next.grant(this.releaser());
      else this.free++;
    };
  }
}
