/** webwatch's version, read from package.json so the two never disagree (dist/src/cli -> project root). */
import { readFileSync } from 'node:fs';

export function version(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
