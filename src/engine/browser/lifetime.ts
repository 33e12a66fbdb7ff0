/**
 * Whether a browser runs in this process, and how to stop it, without loading the browser code:
 * a command that never needed one closes nothing and pays nothing.
 */
let closeOpenBrowser: (() => Promise<void>) | undefined;

export function browserOpened(close: () => Promise<void>): void {
  closeOpenBrowser = close;
}

export function browserClosed(): void {
  closeOpenBrowser = undefined;
}

/** Stops the shared browser if one runs (the command line's end, serve's drain). */
export async function closeBrowserIfOpen(): Promise<void> {
  const close = closeOpenBrowser;
  closeOpenBrowser = undefined;
  await close?.();
}

/** Whether a browser runs in this process now. */
export function browserRunning(): boolean {
  return closeOpenBrowser !== undefined;
}
