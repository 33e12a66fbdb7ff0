/** Temporary definition files for tests. */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'webwatch-test-'));
}

/** Writes `files` (relative path -> content) under `dir` (a new temporary directory) and returns it. */
export function writeFiles(files: Record<string, string>, dir = tempDir()): string {
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return dir;
}
