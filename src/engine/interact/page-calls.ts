/**
 * What interact code may do with the page: the calls a program sends from its own process
 * (code-child.ts), each a chain of property reads and calls from the page (`page.locator('#plan')
 * .textContent()` is get locator, call, get textContent, call), run here on the real Playwright
 * page. Only the names below are reachable: the page's reading, navigation and input, its
 * locators, keyboard and mouse; never its context, browser, routes, file choosers or Node
 * handles. A function argument (`page.evaluate(() => document.title)`) is sent as its source and
 * runs in the page's own JavaScript, never in this process. Every navigation it causes passes
 * the page's request check (serve's private-address rule) like any other.
 */
import type { Page } from 'playwright-core';

/** One step of a chain: a property read, or a call of what the last read gave. */
export type PageStep = { get: string } | { call: unknown[] };

/** The names a chain may read: methods and properties of Page, Locator, Frame, Keyboard and Mouse that act on the page. */
export const PAGE_NAMES: ReadonlySet<string> = new Set([
  // Reading
  'title',
  'url',
  'content',
  'textContent',
  'innerText',
  'innerHTML',
  'inputValue',
  'getAttribute',
  'isVisible',
  'isHidden',
  'isEnabled',
  'isChecked',
  'count',
  'allTextContents',
  'allInnerTexts',
  'evaluate',
  'screenshot',
  'viewportSize',
  // Navigation and waiting
  'goto',
  'goBack',
  'goForward',
  'reload',
  'waitForSelector',
  'waitForTimeout',
  'waitForLoadState',
  'waitForURL',
  'waitFor',
  // Input
  'click',
  'dblclick',
  'fill',
  'type',
  'pressSequentially',
  'press',
  'hover',
  'focus',
  'check',
  'uncheck',
  'selectOption',
  'scrollIntoViewIfNeeded',
  'setViewportSize',
  // Finding
  'locator',
  'getByRole',
  'getByText',
  'getByLabel',
  'getByPlaceholder',
  'getByAltText',
  'getByTitle',
  'getByTestId',
  'first',
  'last',
  'nth',
  'filter',
  'mainFrame',
  'frames',
  'keyboard',
  'mouse',
  'down',
  'up',
  'insertText',
  'move',
  'wheel',
]);

/** Longest a result may be as JSON (a screenshot in base64 fits). */
export const PAGE_RESULT_MAX_CHARS = 8 * 1024 * 1024;

/** A function's source as Playwright takes a page function: typeof function, its text sent to the page. */
function pageFunction(source: string): () => void {
  const stand = () => undefined;
  stand.toString = () => source;
  return stand;
}

const decode = (value: unknown): unknown =>
  value && typeof value === 'object' && '__function' in value && typeof (value as { __function: unknown }).__function === 'string'
    ? pageFunction((value as { __function: string }).__function)
    : value;

/** A value as it can go back to the program: JSON, bytes as base64, Playwright's objects named. */
function returned(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (typeof value === 'function') return `[${value.name || 'function'}]`;
  if (Array.isArray(value)) return value.map(returned);
  if (typeof value === 'object') {
    const name = (value as object).constructor?.name;
    if (name && name !== 'Object') return `[${name}]`;
  }
  return value;
}

/**
 * What would reach past the page: a file written on this machine (a screenshot's `path`), or a
 * page that is no web page (`goto('file:///etc/passwd')`, `chrome://`), which no request check sees.
 */
function refuseOutsideThePage(name: string, args: readonly unknown[]): void {
  for (const arg of args) {
    if (arg && typeof arg === 'object' && 'path' in arg) throw new Error('a path option writes a file of the server, and is not available to interact code');
  }
  if (name === 'goto') {
    let protocol = '';
    try {
      protocol = new URL(String(args[0])).protocol;
    } catch {
      throw new Error(`goto needs an absolute http(s) URL, not ${JSON.stringify(String(args[0]).slice(0, 200))}`);
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`goto opens http(s) pages only, not ${protocol} URLs`);
  }
}

/** Runs a chain on the page and gives back its value as JSON; a name not allowed is refused by name. */
export async function runPageSteps(page: Page, steps: readonly PageStep[]): Promise<unknown> {
  let holder: unknown;
  let value: unknown = page;
  let lastName = '';
  for (const step of steps) {
    if ('get' in step) {
      if (typeof step.get !== 'string' || !PAGE_NAMES.has(step.get)) {
        throw new Error(`page.${String(step.get)} is not available to interact code (see "interact" in docs/scraping.md for what is)`);
      }
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) throw new Error(`cannot read ${step.get} of ${String(value)}`);
      holder = value;
      lastName = step.get;
      value = (value as Record<string, unknown>)[step.get];
    } else {
      if (typeof value !== 'function') throw new Error('not a function');
      if (!Array.isArray(step.call)) throw new Error('bad call');
      refuseOutsideThePage(lastName, step.call);
      value = await (value as (...args: unknown[]) => unknown).apply(holder, step.call.map(decode));
      holder = undefined;
    }
  }
  const result = returned(value);
  if (JSON.stringify(result ?? null).length > PAGE_RESULT_MAX_CHARS) throw new Error(`the result is larger than ${PAGE_RESULT_MAX_CHARS} characters`);
  return result;
}
