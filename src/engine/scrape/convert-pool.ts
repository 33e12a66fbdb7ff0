/**
 * HTML conversion away from the thread that serves: on worker threads, for checks that convert
 * many pages (while workers parse and convert, the main thread goes on fetching, hashing and
 * storing), or in child processes, for the large pages of a server (off-loop.ts). Started only
 * when asked (a one-off scrape never is), and idle workers hold nothing up: they do not keep the
 * process alive and stop after a while without work.
 *
 * A page whose conversion throws gets that error; one that hangs past its scrape's deadline, or
 * that crashes its worker (out of memory, say), gets an error saying so, and its worker is
 * replaced; the other pages go on. A worker thread's memory cap is V8's and best effort: a page
 * can still abort the whole process (nodejs/node#47224). A child process's cannot: a page that
 * exhausts one ends that process alone.
 */
import type { ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { extractionWanted } from '../extract/needs.js';
import type { PdfLimits } from '../pdf/parse-pdf.js';
import type { Content, ConvertInput } from './convert.js';
import { convertsAsHtml, slowToConvert } from './content-type.js';
import { bundleProcessArgs, bundleWorker } from '../../lib/bundle-worker.js';

/** What converts a fetched page: convertPage itself, or a check's conversion. */
export type PageConverter = (page: ConvertInput, options: ScrapeOptions, formats: readonly string[], limits: PdfLimits) => Promise<Content>;

export interface ConversionTask {
  id: number;
  body: Uint8Array;
  contentType: string | undefined;
  finalUrl: string;
  options: ScrapeOptions;
  formats: readonly string[];
  keepRawHtml: boolean;
  /** The scrape's deadline (epoch ms) and timeout: a document's converter and a PDF's tools stop at it. */
  deadline: number;
  timeoutMs: number;
  readImages?: boolean;
}

/** What a child process says first, once it listens for pages. */
const LISTENING = 'listening';

/** A task as a child process hears of it: its page's bytes follow on standard input. */
export type ChildTask = Omit<ConversionTask, 'body'> & { bodyBytes: number };

export type ConversionReply =
  | { id: number; content: Content }
  | { id: number; error: { message: string; code?: string | undefined; status?: number | undefined } };

export interface PoolOptions {
  /** Worker threads at most; default from the cores there are. */
  size?: number;
  /** The worker's module; the pipeline's own by default (tests give misbehaving ones). */
  workerUrl?: URL;
  /** A worker without work stops after this long. */
  idleMs?: number;
  /** Heap of each worker: a page that needs more fails alone. */
  maxHeapMb?: number;
  /** Worker threads (the default), or child processes, which a page cannot take down with them. */
  isolation?: 'thread' | 'process';
}

/** What the pool needs of a worker, thread or process alike. */
interface Converter {
  send(task: ConversionTask): void;
  /** Settles once the worker is gone. */
  terminate(): Promise<void>;
  /** Whether the worker keeps the process alive (only while it has work). */
  hold(held: boolean): void;
}

interface Pending {
  task: ConversionTask;
  deadline: number;
  timeoutMs: number;
  resolve(content: Content): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Converter;
  /** Sent, in the order the worker converts them. */
  inFlight: Pending[];
  timer?: NodeJS.Timeout;
}

const DEFAULT_WORKER = new URL('./convert-worker.js', import.meta.url);
/** One page at a time per worker, plus one waiting there, so that a worker never waits for the main thread. */
const PER_WORKER = 2;

/**
 * Threads to convert on: none on two cores or fewer, where a worker costs more CPU than it
 * frees (bench/README.md: its start, its own JIT warm-up and heap, the messages), and the
 * fetching thread, the V8 helpers and the pages' server need both cores already; from three
 * cores one, from four two.
 */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.max(0, Math.min(2, cores - 2));
}

export class ConversionPool {
  private readonly size: number;
  private readonly workerUrl: URL;
  private readonly idleMs: number;
  private readonly maxHeapMb: number;
  private readonly isolation: 'thread' | 'process';
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private workerClass: typeof Worker | undefined;
  private spawnProcess: typeof import('node:child_process').spawn | undefined;

  constructor(options: PoolOptions = {}) {
    this.size = Math.max(1, options.size ?? defaultPoolSize());
    this.workerUrl = options.workerUrl ?? DEFAULT_WORKER;
    this.idleMs = options.idleMs ?? 5_000;
    this.maxHeapMb = options.maxHeapMb ?? 512;
    this.isolation = options.isolation ?? 'thread';
  }

  /** Starts the workers ahead of the first page, so that they are ready when it comes. */
  async warm(): Promise<void> {
    await this.loadWorkerClass();
    while (!this.closed && this.slots.length < this.size) this.slots.push(this.spawn());
    // Workers warmed for pages that never come (every fetch failed, say) stop like idle ones.
    if (this.queue.length === 0 && this.slots.every((slot) => slot.inFlight.length === 0)) this.idle();
  }

  /** The page converted on a worker, within its scrape's deadline (epoch ms). */
  async convert(
    page: ConvertInput,
    options: ScrapeOptions,
    formats: readonly string[],
    limits: { deadline: number; timeoutMs: number; keepRawHtml: boolean },
  ): Promise<Content> {
    if (this.closed) throw new Error('the conversion pool is closed');
    await this.loadWorkerClass();
    return new Promise<Content>((resolve, reject) => {
      const task: ConversionTask = {
        id: this.nextId++,
        body: page.body,
        contentType: page.contentType,
        finalUrl: page.finalUrl,
        options,
        formats,
        keepRawHtml: limits.keepRawHtml,
        deadline: limits.deadline,
        timeoutMs: limits.timeoutMs,
        ...(page.readImages && { readImages: true }),
      };
      this.queue.push({ task, deadline: limits.deadline, timeoutMs: limits.timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every worker; pages still waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const pending of this.queue.splice(0)) pending.reject(new Error('the conversion pool was closed'));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        clearTimeout(slot.timer);
        for (const pending of slot.inFlight.splice(0)) pending.reject(new Error('the conversion pool was closed'));
        return slot.worker.terminate();
      }),
    );
  }

  /** Workers running now (for tests and diagnostics). */
  get workers(): number {
    return this.slots.length;
  }

  private async loadWorkerClass(): Promise<void> {
    if (this.isolation === 'process') this.spawnProcess ??= (await import('node:child_process')).spawn;
    else this.workerClass ??= (await import('node:worker_threads')).Worker;
  }

  private spawn(): Slot {
    const slot: Slot = { worker: undefined as unknown as Converter, inFlight: [] };
    // The pipeline's own worker starts from the bundle when it is current; a test's from its module.
    const own = this.workerUrl === DEFAULT_WORKER;
    slot.worker = this.isolation === 'process' ? this.spawnChild(slot, own) : this.spawnThread(slot, own);
    slot.worker.hold(false);
    return slot;
  }

  private spawnThread(slot: Slot, own: boolean): Converter {
    const limits = { resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb }, stdout: false, stderr: false };
    const worker = own ? bundleWorker(this.workerClass!, 'convert-worker', DEFAULT_WORKER, limits) : new this.workerClass!(this.workerUrl, limits);
    worker.on('message', (reply: ConversionReply) => this.settle(slot, reply));
    // A worker that dies takes down the page it was converting; the pages queued behind it go to another.
    worker.on('error', (error) => this.lost(slot, crashMessage(error)));
    worker.on('exit', (code) => this.lost(slot, `the conversion worker stopped (exit code ${code})`));
    return {
      send: (task) => worker.postMessage(task),
      terminate: async () => void (await worker.terminate()),
      hold: (held) => (held ? worker.ref() : worker.unref()),
    };
  }

  /**
   * A Node process of its own, capped by V8's heap limit: a page past it aborts that process,
   * which the pool sees by its exit and by the fatal error it printed (the last lines of its
   * standard error are kept for that).
   */
  private spawnChild(slot: Slot, own: boolean): Converter {
    const args = [`--max-old-space-size=${this.maxHeapMb}`, ...(own ? bundleProcessArgs('convert-worker', DEFAULT_WORKER) : [fileURLToPath(this.workerUrl)])];
    const child: ChildProcess = this.spawnProcess!(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
    // A worker gone before its page's bytes were all written: its exit says why.
    child.stdin!.on('error', () => undefined);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
    // Pages wait for the process to say it listens: a message that came before would be lost.
    let listening = false;
    const early: ConversionTask[] = [];
    const write = ({ body, ...task }: ConversionTask) => {
      child.send({ ...task, bodyBytes: body.byteLength } satisfies ChildTask);
      child.stdin!.write(body);
    };
    child.on('message', (reply: ConversionReply | typeof LISTENING) => {
      if (reply !== LISTENING) return this.settle(slot, reply);
      listening = true;
      for (const task of early.splice(0)) write(task);
    });
    child.on('error', (error) => this.lost(slot, `converting the page failed: ${error.message}`));
    // Standard error is read to its end before the reason is given: the fatal error comes just before the exit.
    child.on('close', (code, signal) =>
      this.lost(
        slot,
        /heap out of memory|Allocation failed/i.test(stderr)
          ? `converting the page ran out of memory (the limit is ${this.maxHeapMb} MB)`
          : `the conversion worker stopped (${signal ? `signal ${signal}` : `exit code ${code}`})`,
      ),
    );
    return {
      // The page's bytes go down standard input, written from the page's own buffer: through the
      // IPC channel they would be copied and serialised on this thread, some 30 ms for 19 MB.
      send: (task) => (listening ? write(task) : early.push(task)),
      terminate: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          // Held until it is gone, so that whoever waits for it hears of it.
          child.ref();
          child.kill('SIGKILL');
        }),
      hold: (held) => {
        const handles = [child, child.channel, child.stderr] as ({ ref(): void; unref(): void } | null | undefined)[];
        for (const handle of handles) {
          if (held) handle?.ref();
          else handle?.unref();
        }
      },
    };
  }

  private dispatch(): void {
    clearTimeout(this.idleTimer);
    while (this.queue.length > 0 && !this.closed) {
      if (this.slots.length < this.size) this.slots.push(this.spawn());
      const slot = this.slots.filter((s) => s.inFlight.length < PER_WORKER).sort((a, b) => a.inFlight.length - b.inFlight.length)[0];
      if (!slot) break;
      const pending = this.queue.shift()!;
      if (Date.now() >= pending.deadline) {
        pending.reject(timeoutError(pending));
        continue;
      }
      if (slot.inFlight.length === 0) slot.worker.hold(true);
      slot.inFlight.push(pending);
      slot.worker.send(pending.task);
      this.watch(slot);
    }
    if (this.queue.length === 0 && this.slots.every((slot) => slot.inFlight.length === 0)) this.idle();
  }

  /** The page the worker is on must be done by its deadline, or the worker goes. */
  private watch(slot: Slot): void {
    clearTimeout(slot.timer);
    const running = slot.inFlight[0];
    if (!running) return;
    slot.timer = setTimeout(
      () => {
        this.remove(slot);
        void slot.worker.terminate();
        slot.inFlight.shift()?.reject(timeoutError(running));
        this.queue.unshift(...slot.inFlight.splice(0));
        this.dispatch();
      },
      Math.max(0, running.deadline - Date.now()),
    );
    slot.timer.unref();
  }

  private settle(slot: Slot, reply: ConversionReply): void {
    const index = slot.inFlight.findIndex((pending) => pending.task.id === reply.id);
    if (index < 0) return;
    const [pending] = slot.inFlight.splice(index, 1);
    if ('content' in reply) pending!.resolve(reply.content);
    else
      pending!.reject(
        new WebwatchError(reply.error.message, {
          ...(reply.error.code && { code: reply.error.code }),
          ...(reply.error.status && { status: reply.error.status }),
        }),
      );
    if (slot.inFlight.length === 0) slot.worker.hold(false);
    this.watch(slot);
    this.dispatch();
  }

  private lost(slot: Slot, message: string): void {
    if (!this.remove(slot)) return;
    clearTimeout(slot.timer);
    slot.inFlight.shift()?.reject(new WebwatchError(message, { code: 'SCRAPE_CONVERSION_FAILED' }));
    this.queue.unshift(...slot.inFlight.splice(0));
    this.dispatch();
  }

  private remove(slot: Slot): boolean {
    const index = this.slots.indexOf(slot);
    if (index < 0) return false;
    this.slots.splice(index, 1);
    return true;
  }

  /** Without work for idleMs, the workers stop (a long-running serve gives their memory back). */
  private idle(): void {
    clearTimeout(this.idleTimer);
    if (this.slots.length === 0) return;
    this.idleTimer = setTimeout(() => {
      for (const slot of this.slots.splice(0)) void slot.worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

function crashMessage(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') return 'converting the page ran out of memory';
  return `converting the page failed: ${error instanceof Error ? error.message : String(error)}`;
}

function timeoutError(pending: Pending): WebwatchError {
  return new WebwatchError(ERROR_MESSAGES.requestTimeout, {
    status: 408,
    details: { url: pending.task.finalUrl, timeoutMs: pending.timeoutMs, reason: 'converting the page took longer than the scrape timeout' },
  });
}

/** Where a worker hears of pages and answers: a thread's parentPort, or a child process's IPC channel. */
export interface ConversionPort {
  on(event: 'message', listener: (task: ConversionTask) => void): unknown;
  postMessage(reply: ConversionReply): void;
}

/**
 * A worker's side: converts the pages it is sent one after another, in the order they came,
 * and answers each with its content or its error.
 */
export function answerConversions(port: ConversionPort, convert: PageConverter): void {
  let previous = Promise.resolve();
  port.on('message', (task: ConversionTask) => {
    previous = previous.then(async () => {
      let reply: ConversionReply;
      try {
        const page = { body: task.body, contentType: task.contentType, finalUrl: task.finalUrl, ...(task.readImages && { readImages: true }) };
        const content = await convert(page, task.options, task.formats, { deadline: task.deadline, timeoutMs: task.timeoutMs });
        // The decoded page goes back only when the caller reads it: it is the largest part.
        if (!task.keepRawHtml) delete content.rawHtml;
        reply = { id: task.id, content };
      } catch (error) {
        const { message, code, status } = error as { message?: string; code?: string; status?: number };
        reply = { id: task.id, error: { message: message ?? String(error), code, status } };
      }
      port.postMessage(reply);
    });
  });
}

/**
 * A child process's tasks come by its IPC channel and their pages' bytes, in the same order,
 * on standard input: each task is answered once its bytes are all in.
 */
export function childProcessPort(): ConversionPort {
  // A process whose parent is gone has no one to answer.
  process.on('disconnect', () => process.exit(0));
  const waiting: ChildTask[] = [];
  let chunks: Buffer[] = [];
  let buffered = 0;
  let listener: ((task: ConversionTask) => void) | undefined;
  const deliver = () => {
    while (waiting.length > 0 && buffered >= waiting[0]!.bodyBytes) {
      const { bodyBytes, ...task } = waiting.shift()!;
      const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
      const body = all.subarray(0, bodyBytes);
      chunks = buffered > bodyBytes ? [all.subarray(bodyBytes)] : [];
      buffered -= bodyBytes;
      listener?.({ ...task, body });
    }
  };
  process.stdin.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    buffered += chunk.length;
    deliver();
  });
  process.on('message', (task: ChildTask) => {
    waiting.push(task);
    deliver();
  });
  return {
    on: (_event, heard) => {
      listener = heard;
      process.send!(LISTENING);
    },
    postMessage: (reply) => void process.send!(reply),
  };
}

let shared: ConversionPool | undefined;

/** The process's pool, made on first use with `size` workers. */
export function sharedConversionPool(size = defaultPoolSize()): ConversionPool {
  shared ??= new ConversionPool({ size });
  return shared;
}

/** Pages a check converts on its own thread before it hands conversion to the workers. */
export const INLINE_CONVERSIONS = 8;

export interface CheckConversion {
  convert: PageConverter;
  /** The check knows it will convert about this many pages (its new ones): workers start now if that is more than a handful. */
  expect(pages: number): void;
}

/**
 * The conversion of one check: a handful of pages on the check's own thread (a small check
 * starts no thread), the rest of its HTML pages on `threads` workers of the process's pool;
 * with 0 threads, every page here. Other responses (PDFs, JSON, text) stay on this thread.
 * `here` converts on this thread (the content pipeline by default); a server's (off-loop.ts)
 * takes every page slow to convert, whatever the count, to a process of its own.
 */
export function checkConversion(
  threads = defaultPoolSize(),
  pool: () => ConversionPool = () => sharedConversionPool(threads),
  here?: PageConverter,
): CheckConversion {
  let inline = threads > 0 ? INLINE_CONVERSIONS : Infinity;
  const convertHere: PageConverter = async (...page) => (here ?? (await import('./convert.js')).convertPage)(...page);
  return {
    expect(pages) {
      if (pages <= INLINE_CONVERSIONS || threads === 0) return;
      inline = 0;
      void pool().warm();
    },
    async convert(page, options, formats, limits) {
      if (here && slowToConvert(page)) return here(page, options, formats, limits);
      if (inline > 0 || !convertsAsHtml(page)) {
        inline--;
        return convertHere(page, options, formats, limits);
      }
      // The decoded page is the largest part of a reply: it comes back only when a format or an extraction reads it.
      const keepRawHtml = formats.includes('rawHtml') || formats.includes('html') || extractionWanted(options);
      return cancellable(pool().convert(page, options, formats, { deadline: limits.deadline, timeoutMs: limits.timeoutMs, keepRawHtml }), limits.signal);
    },
  };
}

/** The conversion, or the scrape's cancellation if it comes first (the worker finishes the page and takes the next). */
export function cancellable<T>(converted: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return converted;
  return new Promise<T>((resolve, reject) => {
    const cancelled = () => reject(cancelledError());
    if (signal.aborted) return cancelled();
    signal.addEventListener('abort', cancelled, { once: true });
    converted.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancelled));
  });
}

const cancelledError = () => new WebwatchError('the scrape was cancelled', { code: 'SCRAPE_CANCELLED' });
