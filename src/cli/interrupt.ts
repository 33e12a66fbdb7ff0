/**
 * Ctrl-C for a command that has something to do first (cancel a remote job, stop following):
 * the first press aborts the returned signal instead of exiting at once; a second press exits
 * 130 as usual. `dispose` gives SIGINT back to the default handler.
 */
export function interruptible(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const previous = process.listeners('SIGINT');
  process.removeAllListeners('SIGINT');
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onInterrupt);
  return {
    signal: controller.signal,
    dispose() {
      process.removeListener('SIGINT', onInterrupt);
      for (const listener of previous) process.on('SIGINT', listener as () => void);
    },
  };
}
