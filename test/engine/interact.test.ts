/**
 * Interact's parts on their own: the page calls a program may make (page-calls.ts), the sessions'
 * bounds and idle close (sessions.ts), and a live page under a URL rule: a navigation the rule
 * refuses fails the call that made it, reaches no server, and leaves the session usable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import type { LivePage } from '../../src/engine/browser/render.js';
import { openSessionPage } from '../../src/engine/interact/interact.js';
import { PAGE_NAMES, runPageSteps } from '../../src/engine/interact/page-calls.js';
import { runCode } from '../../src/engine/interact/run-code.js';
import { interactSessions, sessionCredits } from '../../src/engine/interact/sessions.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** A page as far as the refusals go: every call is recorded, none should be made. */
function fakePage() {
  const calls: string[] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push(`${name}(${JSON.stringify(args)})`);
      return Promise.resolve(name === 'title' ? 'A title' : undefined);
    };
  const page = { title: record('title'), goto: record('goto'), screenshot: record('screenshot'), context: record('context'), evaluate: record('evaluate') };
  return { page: page as never, calls };
}

describe('the page calls of interact code', () => {
  it('reaches only the names on its list, and runs those', async () => {
    const { page, calls } = fakePage();
    assert.equal(await runPageSteps(page, [{ get: 'title' }, { call: [] }]), 'A title');
    for (const name of ['context', 'route', 'exposeFunction', 'setInputFiles', 'pdf', '__proto__', 'constructor']) {
      assert.ok(!PAGE_NAMES.has(name), name);
      await assert.rejects(runPageSteps(page, [{ get: name }, { call: [] }]), new RegExp(`page\\.${name.replace(/_/g, '_')} is not available`));
    }
    assert.deepEqual(calls, ['title([])']);
  });

  it('refuses a page that is no web page, and an option that writes a file of the server', async () => {
    const { page, calls } = fakePage();
    for (const url of ['file:///etc/passwd', 'chrome://settings', 'view-source:https://example.com', 'javascript:alert(1)']) {
      await assert.rejects(runPageSteps(page, [{ get: 'goto' }, { call: [url] }]), /goto opens http\(s\) pages only/);
    }
    await assert.rejects(runPageSteps(page, [{ get: 'goto' }, { call: ['not a url'] }]), /goto needs an absolute http\(s\) URL/);
    await assert.rejects(runPageSteps(page, [{ get: 'screenshot' }, { call: [{ path: '/tmp/x.png' }] }]), /writes a file of the server/);
    assert.deepEqual(calls, []);
    await runPageSteps(page, [{ get: 'goto' }, { call: ['https://example.com/'] }]);
    assert.deepEqual(calls, ['goto(["https://example.com/"])']);
  });

  it('sends a function argument to the page as its source, never running it here', async () => {
    const seen: unknown[] = [];
    const page = { evaluate: (fn: unknown) => (seen.push(typeof fn, String(fn)), Promise.resolve(1)) } as never;
    let ranHere = false;
    (globalThis as Record<string, unknown>).__interactRanHere = () => (ranHere = true);
    await runPageSteps(page, [{ get: 'evaluate' }, { call: [{ __function: '() => globalThis.__interactRanHere()' }] }]);
    assert.deepEqual(seen, ['function', '() => globalThis.__interactRanHere()']);
    assert.equal(ranHere, false);
  });
});

describe('interact sessions', () => {
  const live = () => {
    const closed: boolean[] = [];
    const page: LivePage = {
      page: {} as never,
      takeRefusal: async () => undefined,
      storageState: async () => ({}),
      close: async (save) => void closed.push(save),
    };
    return { page, closed };
  };

  it('bounds the sessions of a team and of the process, with 429 and a reason', async () => {
    const sessions = interactSessions({ perTeam: 1, total: 2, idleMs: 60_000, maxMs: 60_000 });
    await sessions.session('acme', 'a', async () => ({ url: 'https://example.com/', live: live().page }));
    // The same scrape again is the same session.
    await sessions.session('acme', 'a', async () => assert.fail('opened twice'));
    await assert.rejects(
      sessions.session('acme', 'b', async () => ({ url: 'x', live: live().page })),
      (error: WebwatchError) => {
        assert.deepEqual([error.status, error.code], [429, 'INTERACT_SESSION_LIMIT']);
        assert.match(JSON.stringify(error.details), /this team has 1 interact sessions open/);
        return true;
      },
    );
    await sessions.session('globex', 'c', async () => ({ url: 'x', live: live().page }));
    await assert.rejects(
      sessions.session('initech', 'd', async () => ({ url: 'x', live: live().page })),
      /Rate limit exceeded/,
    );
    assert.equal(sessions.count(), 2);
    await sessions.closeAll();
    assert.equal(sessions.count(), 0);
  });

  it('closes an idle session, writing its profile back, and bills its started minutes', async () => {
    const ends: unknown[] = [];
    const sessions = interactSessions({ perTeam: 2, total: 2, idleMs: 50, maxMs: 60_000 }, (end) => ends.push(end));
    const { page, closed } = live();
    const session = await sessions.session('acme', 'a', async () => ({ url: 'x', live: page }));
    // A call in progress is not idle, however long it takes.
    await sessions.use(session, () => new Promise((resolve) => setTimeout(resolve, 120)));
    assert.equal(sessions.count('acme'), 1, 'not closed while busy');
    for (let i = 0; i < 100 && sessions.count() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sessions.count(), 0);
    assert.deepEqual(closed, [true]);
    assert.equal((ends[0] as { why: string }).why, 'idle');
    assert.deepEqual([sessionCredits(1), sessionCredits(60_000), sessionCredits(60_001)], [2, 2, 4]);
    await assert.rejects(
      sessions.use(session, async () => 1),
      /the interact session has closed/,
    );
  });
});

const chromiumMissing = (() => {
  try {
    findChromium(process.env, undefined, 'the tests');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();

describe('a live page under a URL rule', { skip: chromiumMissing }, () => {
  let site: TestServer;
  before(async () => {
    site = await startServer({
      '/': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Home</title><a id="away" href="/private">away</a>'),
      '/private': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Private</title>'),
    });
  });
  after(async () => {
    await closeBrowserIfOpen();
    await site.close();
  });

  it('refuses a navigation the rule refuses, by goto or by a click, reaching no server; the page stays where it was', async () => {
    const refuse = async (url: URL) => {
      if (url.pathname === '/private') throw new WebwatchError(`${url.href} is a private address, and this server does not fetch those`, { status: 403 });
    };
    const live = await openSessionPage(`${site.origin}/`, {}, { version: 'test', now: () => new Date(), checkUrl: refuse }, 'scrape-1');
    try {
      const run = (code: string) => runCode(live.page, { code, timeoutMs: 10_000, sandbox: false });
      const byGoto = await run(`await page.goto('${site.origin}/private')`);
      assert.equal(byGoto.exitCode, 1);
      assert.match(String(await live.takeRefusal()), /is a private address/);
      const byClick = await run("await page.click('#away'); await page.waitForTimeout(300); await page.title()");
      assert.match(String(await live.takeRefusal()), /is a private address/, byClick.stderr);
      assert.equal(site.requests.filter((request) => request.path === '/private').length, 0);
      // Forgotten once taken: the session goes on.
      assert.equal(await live.takeRefusal(), undefined);
      assert.equal((await run('await page.title()')).result, 'Home');
    } finally {
      await live.close(false);
    }
  });

  it('times a program from its own start, once: a program that sends the start line again is still stopped at its timeout', async () => {
    const live = await openSessionPage(`${site.origin}/`, {}, { version: 'test', now: () => new Date() }, 'scrape-2');
    try {
      // The pipe to the server is fd 3; a forged start line every 100 ms would reset a timer that restarted on each.
      const forger =
        "const { writeSync } = await import('node:fs'); setInterval(() => writeSync(3, JSON.stringify({ type: 'started' }) + '\\n'), 100); await new Promise(() => {})";
      const began = Date.now();
      const forged = await runCode(live.page, { code: forger, timeoutMs: 1_000, sandbox: false });
      assert.deepEqual([forged.killed, forged.exitCode], [true, 137], forged.stderr);
      assert.ok(Date.now() - began < 20_000, 'stopped at its timeout, not at the start-up limit or never');
      const quick = await runCode(live.page, { code: 'await page.title()', timeoutMs: 1_000, sandbox: false });
      assert.deepEqual([quick.killed, quick.result], [false, 'Home']);
    } finally {
      await live.close(false);
    }
  });
});
