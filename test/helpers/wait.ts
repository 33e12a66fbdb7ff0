/** Polls `probe` every 25 ms until it answers (anything but undefined); fails after `timeoutMs`, naming `what` it waited for. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000, what = 'the probe'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
