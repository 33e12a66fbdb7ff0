/**
 * `monitor apply` as processes: two applies of the same files at once on one engine home, and
 * the progress an apply prints as it goes (what a killed apply has done).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { databasePath, openDatabase } from '../../src/engine/store/database.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { readBody, startServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'webwatch.js');

/** `count` definition files, one monitor each: m000, m001... */
function definitionFiles(count: number): { dir: string; names: string[] } {
  const names = Array.from({ length: count }, (_, i) => `m${String(i).padStart(3, '0')}`);
  const files = Object.fromEntries(
    names.map((name, i) => [`${name}.yaml`, `name: ${name}\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/${i}"]}]\n`]),
  );
  return { dir: writeFiles(files), names };
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: Record<string, string>): { child: ChildProcess; stderrLines: string[]; finished: Promise<Finished> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const stderrLines: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    stderrLines.splice(0, stderrLines.length, ...stderr.split('\n').filter(Boolean));
  });
  const finished = new Promise<Finished>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, stderrLines, finished };
}

/** Resolves once `lines` holds `count` lines matching `pattern`; rejects after `ms`. */
async function waitForLines(lines: string[], pattern: RegExp, count: number, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const matching = lines.filter((line) => pattern.test(line));
    if (matching.length >= count) return matching;
    if (Date.now() > deadline) throw new Error(`after ${ms} ms, ${matching.length} of ${count} lines matching ${pattern}; stderr:\n${lines.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const storedNames = async (home: string) => {
  const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }));
  try {
    return (await monitorStore(db).list('local')).map((monitor) => monitor.definition.name);
  } finally {
    await db.close();
  }
};

describe('monitor apply as processes', () => {
  it('two applies of the same 200 files at once both succeed, and the monitors are exactly the files', { timeout: 120_000 }, async () => {
    const { dir, names } = definitionFiles(200);
    let overlapped = 0;
    // The race shows only when one lists the monitors before the other has created them all,
    // about every other round here: rounds go on until it has shown twice, within bounds.
    const deadline = Date.now() + 60_000;
    for (let round = 0; round < 25 && overlapped < 2 && Date.now() < deadline; round++) {
      const home = tempDir();
      // An existing database: two first opens serialise on the migrations and rarely overlap after.
      await (await openDatabase(databasePath({ WEBWATCH_HOME: home }))).close();
      const env = { WEBWATCH_HOME: home };
      const applies = [start(['monitor', 'apply', '-f', dir, '--yes'], env), start(['monitor', 'apply', '-f', dir, '--yes'], env)];
      const results = await Promise.all(applies.map((apply) => apply.finished));
      for (const result of results) {
        assert.doesNotMatch(result.stderr, /internal error/);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stderr, /^Applied: \d+ created, 0 updated, \d+ unchanged, 0 deleted\.$/m);
      }
      const created = results.map((result) => Number(/Applied: (\d+) created/.exec(result.stderr)![1]));
      assert.equal(created[0]! + created[1]!, 200, 'each monitor was created once, by one of the two');
      if (results.some((result) => /another process created it meanwhile/.test(result.stderr))) overlapped++;
      assert.deepEqual(await storedNames(home), names);
    }
    assert.ok(overlapped > 0, 'the two applies never overlapped, so the race was not tested');
  });

  it('prints each monitor on stderr as soon as it is created, while the rest wait', { timeout: 30_000 }, async () => {
    // A v2 API that creates three monitors, then keeps the fourth request waiting.
    const created: string[] = [];
    const api = await startServer({
      '/v2/monitor': async (request, response) => {
        if (request.method === 'GET') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":[]}');
        const body = JSON.parse(await readBody(request)) as { name: string };
        if (created.length === 3) return; // never answered
        created.push(body.name);
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: true, data: { ...body, id: randomUUID(), status: 'active' } }));
      },
    });
    const { dir, names } = definitionFiles(10);
    const apply = start(['monitor', 'apply', '-f', dir, '--yes'], { WEBWATCH_API_URL: api.url, WEBWATCH_API_KEY: 'ww_test' });
    try {
      const lines = await waitForLines(apply.stderrLines, /^\+ created /, 3, 20_000);
      assert.equal(apply.child.exitCode, null, 'the apply is still waiting on the fourth monitor');
      assert.deepEqual(
        lines.map((line) => /^\+ created (\S+) {2}\([0-9a-f-]{36}\)$/.exec(line)?.[1]),
        names.slice(0, 3),
      );
      assert.deepEqual(created, names.slice(0, 3));
    } finally {
      apply.child.kill('SIGKILL');
      await apply.finished;
      await api.close();
    }
  });

  it('an apply killed half-way has printed only monitors that exist', { timeout: 30_000 }, async () => {
    const { dir, names } = definitionFiles(500);
    const home = tempDir();
    const apply = start(['monitor', 'apply', '-f', dir, '--yes'], { WEBWATCH_HOME: home });
    await waitForLines(apply.stderrLines, /^\+ created /, 1, 20_000);
    apply.child.kill('SIGKILL');
    const result = await apply.finished;
    assert.equal(result.signal, 'SIGKILL', 'killed before it ended');
    const printed = result.stderr.split('\n').flatMap((line) => /^\+ created (\S+) {2}\(/.exec(line)?.[1] ?? []);
    assert.ok(printed.length > 0);
    const stored = new Set(await storedNames(home));
    for (const name of printed) assert.ok(stored.has(name), `${name} was printed as created but is not in the store`);
    assert.ok([...stored].every((name) => names.includes(name)));
  });
});
