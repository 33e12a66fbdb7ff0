/**
 * Validation of definitions that others send (a model through MCP), on worker threads: parsing
 * a YAML document of a few megabytes takes a second or more of CPU, and on the server's own
 * thread that second would hold up every other session. Each validation has a time limit and
 * its worker a heap limit; a document past either gets a validation error that says so, and
 * the worker is replaced. The command line validates its own files on its own thread: it
 * serves nobody else.
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import { bundleWorker } from '../lib/bundle-worker.js';
import type { DefinitionSource } from './definitions/read.js';
import { validateSources, type ValidateContext, type ValidationReport } from './validate.js';

export interface UntrustedValidationLimits {
  /** How long one validation may take on its worker. */
  timeMs: number;
  /** The heap of a validation's worker. */
  heapMb: number;
  /** Validations at once; others wait for a worker. */
  atOnce: number;
}

/**
 * A definition within the interface's limits (2,000 URLs a monitor) validates in well under a
 * second and 100 MB. The file of 200,000 values aliased 99 times (1.7 MB) takes 1.3 s and 450
 * MB on a quiet machine, and under a heap of 512 MB spends a third longer collecting garbage:
 * the limits leave such documents room on a busy machine, and two at once cannot take more
 * than 2 GB.
 */
export const UNTRUSTED_VALIDATION_LIMITS: UntrustedValidationLimits = { timeMs: 30_000, heapMb: 1024, atOnce: 2 };

const WORKER = new URL('./validate-worker.js', import.meta.url);
/** An idle worker stops after this long: a server validating now and then holds no thread. */
const IDLE_MS = 10_000;

interface Task {
  id: number;
  sources: readonly DefinitionSource[];
  env: ValidateContext['env'];
}
type Reply = { id: number; report: ValidationReport } | { id: number; error: string };

/** Every file of `sources` refused with one message (the validation could not finish). */
function refusedReport(sources: readonly DefinitionSource[], message: string): ValidationReport {
  return { valid: false, files: sources.map((source) => ({ file: source.file, monitors: [], errors: [{ path: '', line: null, column: null, message }] })) };
}

interface Slot {
  worker: Worker;
  busy: boolean;
  idleTimer?: NodeJS.Timeout;
}

export class UntrustedValidation {
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];
  private nextId = 0;

  constructor(
    private readonly limits: UntrustedValidationLimits = UNTRUSTED_VALIDATION_LIMITS,
    private readonly workerUrl: URL = WORKER,
  ) {}

  /** The report of `sources`, as validateSources would make it, made on a worker within the limits. */
  async validate(sources: readonly DefinitionSource[], context: ValidateContext): Promise<ValidationReport> {
    const slot = await this.take();
    const task: Task = { id: this.nextId++, sources, env: { ...context.env } };
    try {
      return await new Promise<ValidationReport>((resolve, reject) => {
        const { worker } = slot;
        const settle = () => {
          clearTimeout(timer);
          worker.off('message', answered);
          worker.off('error', failed);
          worker.off('exit', exited);
        };
        const lost = (message: string) => {
          settle();
          this.remove(slot);
          void worker.terminate();
          resolve(refusedReport(sources, message));
        };
        const answered = (reply: Reply) => {
          if (reply.id !== task.id) return;
          settle();
          if ('report' in reply) resolve(reply.report);
          else reject(new Error(reply.error));
        };
        const failed = (error: unknown) =>
          lost(
            (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? `validating this definition needed more than ${this.limits.heapMb} MB, the limit for a definition sent to this server: send a smaller one, or write out what its aliases repeat`
              : `validating this definition failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        const exited = (code: number) => lost(`validating this definition stopped its worker (exit code ${code})`);
        const timer = setTimeout(
          () =>
            lost(
              `validating this definition took longer than ${this.limits.timeMs / 1000} s, the limit for a definition sent to this server: send a smaller one, or write out what its aliases repeat`,
            ),
          this.limits.timeMs,
        );
        worker.on('message', answered);
        worker.once('error', failed);
        worker.once('exit', exited);
        worker.postMessage(task);
      });
    } finally {
      this.give(slot);
    }
  }

  /** Workers running now (for tests). */
  get workers(): number {
    return this.slots.length;
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        clearTimeout(slot.idleTimer);
        return slot.worker.terminate();
      }),
    );
  }

  private async take(): Promise<Slot> {
    // Loaded before the slots are counted: the count and the push below happen in one turn.
    const { Worker } = await import('node:worker_threads');
    for (;;) {
      const idle = this.slots.find((slot) => !slot.busy);
      if (idle) {
        clearTimeout(idle.idleTimer);
        idle.busy = true;
        idle.worker.ref();
        return idle;
      }
      if (this.slots.length < this.limits.atOnce) {
        const worker = bundleWorker(Worker, 'validate-worker', this.workerUrl, {
          resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb },
          stdout: false,
          stderr: false,
        });
        const slot: Slot = { worker, busy: true };
        // A worker that dies between validations is simply replaced.
        worker.on('exit', () => this.remove(slot));
        worker.on('error', () => undefined);
        this.slots.push(slot);
        return slot;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private give(slot: Slot): void {
    slot.busy = false;
    if (this.slots.includes(slot)) {
      // An idle worker keeps nothing alive, and stops after a while.
      slot.worker.unref();
      slot.idleTimer = setTimeout(() => {
        this.remove(slot);
        void slot.worker.terminate();
      }, IDLE_MS);
      slot.idleTimer.unref();
    }
    this.waiting.shift()?.();
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    clearTimeout(slot.idleTimer);
  }
}

let shared: UntrustedValidation | undefined;

/** The process's validation of untrusted definitions, made on first use. */
export function validateUntrusted(sources: readonly DefinitionSource[], context: ValidateContext): Promise<ValidationReport> {
  shared ??= new UntrustedValidation();
  return shared.validate(sources, context);
}

/** A worker's side: validates each task it is sent, in order, and answers with the report. */
export function answerValidations(port: MessagePort): void {
  port.on('message', (task: Task) => {
    let reply: Reply;
    try {
      reply = { id: task.id, report: validateSources(task.sources, { env: task.env }) };
    } catch (error) {
      reply = { id: task.id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
}
