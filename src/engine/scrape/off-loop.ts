/**
 * A server's conversion: a page that takes long to convert is converted in a child process of
 * the pool (convert-pool.ts), so that it holds up no one else's answers; other pages here, on
 * the fast path. What takes long is judged on the bytes, cheaply, before any parsing: their
 * size, and for HTML the count of `<` (content-type.ts: slowToConvert).
 */
import { availableParallelism } from 'node:os';
import { extractionWanted } from '../extract/needs.js';
import { cancellable, ConversionPool, type PageConverter } from './convert-pool.js';
import { slowToConvert } from './content-type.js';

/** Heap of each conversion process: a page that needs more fails alone, with an error saying so. */
export const CONVERSION_MEMORY_MB = 512;

/** Processes to convert on: one on two cores, where the main thread needs the other, up to four. */
export function offLoopPoolSize(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

let shared: ConversionPool | undefined;

/**
 * The process's pool of conversion processes, made on first use with a heap of `memoryMb` each
 * (the first caller's); idle ones stop after half a minute.
 */
export function offLoopPool(memoryMb = CONVERSION_MEMORY_MB): ConversionPool {
  shared ??= new ConversionPool({ size: offLoopPoolSize(), isolation: 'process', maxHeapMb: memoryMb, idleMs: 30_000 });
  return shared;
}

/**
 * Converts slow pages on `pool` (the process's, by default) and the rest with `here` (the
 * content pipeline on this thread), within the scrape's deadline and cancellation.
 */
export function offLoopConversion(pool: () => ConversionPool = () => offLoopPool(), here?: PageConverter): PageConverter {
  // Loaded once: asking the loader again costs its look-up on every page.
  let pipeline: Promise<PageConverter> | undefined;
  return async (page, options, formats, limits) => {
    if (!slowToConvert(page))
      return (here ?? (await (pipeline ??= import('./convert.js').then((module) => module.convertPage))))(page, options, formats, limits);
    // The decoded page is the largest part of a reply: it comes back only when a format or an extraction reads it.
    const keepRawHtml = formats.includes('rawHtml') || formats.includes('html') || extractionWanted(options);
    return cancellable(pool().convert(page, options, formats, { deadline: limits.deadline, timeoutMs: limits.timeoutMs, keepRawHtml }), limits.signal);
  };
}
