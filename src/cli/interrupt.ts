/**
 * Ctrl-C for a command that has something to do first (cancel a remote job, stop following):
 * the first press aborts the returned signal instead of exiting at once; a second press gives
 * SIGINT back to what handled it before (the launcher, which says why and exits 130) and raises
 * it again. `dispose` gives SIGINT back without raising it. Only the launcher exits the process.
 */
export function interruptible(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const previous = process.listeners('SIGINT');
  process.removeAllListeners('SIGINT');
  const dispose = () => {
    process.removeListener('SIGINT', onInterrupt);
    for (const listener of previous) if (!process.listeners('SIGINT').includes(listener)) process.on('SIGINT', listener as () => void);
  };
  const onInterrupt = () => {
    if (!controller.signal.aborted) {
      controller.abort(new Error('interrupted'));
      return;
    }
    dispose();
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', onInterrupt);
  return { signal: controller.signal, dispose };
}
