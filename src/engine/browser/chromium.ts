/**
 * Which Chromium to drive: the configured one (`browser.executablePath`), WEBWATCH_CHROMIUM, or
 * the usual places of Debian's package and of Chrome. Never a download.
 */
import { accessSync, constants } from 'node:fs';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { Env } from '../../lib/env.js';

/**
 * The headless shell first: it opens a page three to four times faster than the full browser.
 * Debian's binaries before their /usr/bin wrapper scripts, so the browser is our own child.
 */
export const USUAL_CHROMIUM_PATHS = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

export const BROWSER_INSTALL_HINT =
  "install Debian's Chromium (apt-get install chromium-headless-shell, or chromium), or name one with browser.executablePath in the config or WEBWATCH_CHROMIUM";

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The Chromium to run, or a clear error (exit 11) naming why a browser was needed and how to get one. */
export function findChromium(env: Env, configured: string | undefined, why: string): string {
  const missing = (what: string) =>
    new WebwatchError(`${why} needs a browser, and ${what}`, {
      status: 501,
      code: 'BROWSER_NOT_FOUND',
      exitCode: EXIT.browserMissing,
      suggestion: BROWSER_INSTALL_HINT,
    });
  const named = configured ?? env.WEBWATCH_CHROMIUM;
  if (named) {
    if (executable(named)) return named;
    throw missing(`${named} (${configured ? 'browser.executablePath' : 'WEBWATCH_CHROMIUM'}) cannot be run`);
  }
  const found = USUAL_CHROMIUM_PATHS.find(executable);
  if (found) return found;
  throw missing('no Chromium was found');
}
