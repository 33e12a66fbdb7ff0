/** Work rows (checks, crawl jobs) name the process that runs them; a dead owner means an orphan. */
export function processAlive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
