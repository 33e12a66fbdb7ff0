/**
 * The process an interact `code` request runs in (run-code.ts starts it, under serve inside
 * bubblewrap): the caller's program, given `page`, a stand-in for the browser page whose every
 * call goes to webwatch over file descriptor 3 (a line of JSON each way) and runs there on the
 * real page (page-calls.ts). The program has no browser, network or file of the server of its
 * own: only what those calls do. `console.log` is its stdout. Its last expression's value (`await
 * page.title()`), or what it returns, is the answer's `result`.
 *
 * It imports nothing but Node's own modules: it runs as this one file, from the compiled tree.
 */
import { Socket } from 'node:net';

type Step = { get: string } | { call: unknown[] };

const channel = new Socket({ fd: 3, readable: true, writable: true });
channel.setEncoding('utf8');
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let nextId = 1;
let buffered = '';

const send = (message: unknown) => channel.write(`${JSON.stringify(message)}\n`);

function call(steps: Step[]): Promise<unknown> {
  const id = nextId++;
  send({ id, steps });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

/** A function argument goes as its source, to run in the page. */
const encoded = (value: unknown) => (typeof value === 'function' ? { __function: value.toString() } : value);

/** Marks a chain: a value the program did not await is awaited before it is shown. */
const CHAIN = Symbol('chain');

/** `page`, or a chain from it: nothing is sent until it is awaited. */
function chain(steps: Step[]): unknown {
  return new Proxy(() => undefined, {
    get(_target, property) {
      if (property === CHAIN) return steps.length > 0;
      if (property === 'then') {
        if (steps.length === 0) return undefined;
        const result = call(steps);
        return result.then.bind(result);
      }
      if (typeof property === 'symbol') return undefined;
      return chain([...steps, { get: property }]);
    },
    apply(_target, _self, args: unknown[]) {
      return chain([...steps, { call: args.map(encoded) }]);
    },
  });
}

/**
 * A value with the chains in it awaited: `[page.url(), await page.title()]` shows the URL, as
 * Playwright's own `page.url()` needs no await. Objects and arrays are followed a few levels down.
 */
async function settled(value: unknown, depth = 0): Promise<unknown> {
  if (typeof value === 'function' && (value as unknown as Record<symbol, boolean>)[CHAIN]) return settled(await value, depth);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Promise.all(value.map((item) => settled(item, depth + 1)));
  const entries = await Promise.all(Object.entries(value).map(async ([key, item]) => [key, await settled(item, depth + 1)] as const));
  return Object.fromEntries(entries);
}

/** The answer's `result`: text as it is, anything else as JSON. */
const shown = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2));

type Program = (page: unknown) => Promise<unknown>;

/**
 * The program, its last expression its result as Python's and a REPL's: `await page.title()`
 * alone, or `await page.click('#a'); await page.title()`. The split before the last expression
 * is found by trying the places it could be (after a `;` or a line's end, from the last) until
 * the two parts compile; a program whose end is no expression (a `return`, a block) runs as it is.
 */
function programOf(code: string, AsyncFunction: new (...args: string[]) => Program): Program {
  const body = code.replace(/[\s;]+$/, '');
  const compiles = (source: string) => {
    try {
      return new AsyncFunction('page', source);
    } catch {
      return undefined;
    }
  };
  const whole = compiles(`return (\n${body}\n);`);
  if (whole) return whole;
  // Not JavaScript at all: run as it is, to fail with its own SyntaxError.
  if (!compiles(body)) return new AsyncFunction('page', code);
  let tries = 0;
  for (let at = body.length - 1; at > 0 && tries < 500; at--) {
    if (body[at] !== ';' && body[at] !== '\n') continue;
    tries++;
    const last = body.slice(at + 1).trim();
    if (!last || /^(return|const|let|var|if|for|while|do|switch|try|throw|function|class|async function|import|export)\b/.test(last)) continue;
    const split = compiles(`${body.slice(0, at + 1)}\nreturn (\n${last}\n);`);
    if (split) return split;
  }
  return new AsyncFunction('page', code);
}

async function run(code: string): Promise<void> {
  const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => Program;
  // The timeout counts from here: the start of a process (bubblewrap, Node) is not the program's time.
  send({ type: 'started' });
  try {
    const program = programOf(code, AsyncFunction);
    const value = await settled(await program(chain([])));
    send({ type: 'result', result: shown(value) });
  } catch (error) {
    // The error, not its stack: the frames would name this server's files.
    process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
    send({ type: 'result', error: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
  }
  channel.end();
}

channel.on('data', (chunk: string) => {
  buffered += chunk;
  for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
    const message = JSON.parse(buffered.slice(0, newline)) as { type?: string; code?: string; id?: number; ok?: boolean; value?: unknown; error?: string };
    buffered = buffered.slice(newline + 1);
    if (message.type === 'run') void run(message.code ?? '');
    else if (message.id !== undefined) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.ok) waiting?.resolve(message.value);
      else waiting?.reject(new Error(message.error));
    }
  }
});
