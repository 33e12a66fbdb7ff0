import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/files.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { convertPage } from '../../src/engine/scrape/convert.js';
import { checkConversion, ConversionPool, defaultPoolSize, INLINE_CONVERSIONS } from '../../src/engine/scrape/convert-pool.js';
import { OFF_LOOP_MIN_BYTES, OFF_LOOP_MIN_TAGS, slowToConvert } from '../../src/engine/scrape/content-type.js';
import { offLoopConversion, offLoopPoolSize } from '../../src/engine/scrape/off-loop.js';
import { minimalDocx } from '../helpers/zip.js';
import { documentToolsMissing } from '../helpers/documents.js';

const misbehaving = new URL('../helpers/misbehaving-convert-worker.js', import.meta.url);
const html = (title: string, body: string) =>
  Buffer.from(
    `<!doctype html><html lang="en"><head><title>${title}</title><meta name="description" content="About ${title}"></head><body><nav><a href="/">Home</a></nav><main><article><h1>${title}</h1>${body}</article></main><footer>Footer</footer></body></html>`,
  );
const page = (path: string, body = '<p>One paragraph of text that is long enough to be the main content of this page.</p>') => ({
  body: html(path, body),
  contentType: 'text/html; charset=utf-8',
  finalUrl: `http://127.0.0.1:9/${path.replace(/^\//, '')}`,
});
const limits = (ms = 60_000) => ({ deadline: Date.now() + ms, timeoutMs: ms, keepRawHtml: false });
const options = { formats: ['markdown' as const] };

describe('conversion on worker threads', () => {
  it('converts a page as the content pipeline does on this thread, without the decoded page unless asked for it', async () => {
    const pool = new ConversionPool({ size: 1 });
    try {
      const input = page(
        '/a',
        '<p>Caf\u00e9 <b>bold</b> and <a href="/x">a link</a>.</p><ul><li>one</li><li>two</li></ul><table><tr><td>cell</td></tr></table>',
      );
      const here = await convertPage(input, { ...options, formats: ['markdown', 'links', 'html'] }, ['markdown', 'links', 'html']);
      const there = await pool.convert(input, { ...options, formats: ['markdown', 'links', 'html'] }, ['markdown', 'links', 'html'], limits());
      const { rawHtml, ...rest } = here;
      assert.ok(rawHtml?.includes('Caf\u00e9'));
      assert.deepEqual(there, rest);
      assert.ok(there.markdown.includes('**bold**'), there.markdown);
      assert.equal(there.metadata.title, '/a');
      const kept = await pool.convert(input, options, ['markdown'], { ...limits(), keepRawHtml: true });
      assert.equal(kept.rawHtml, rawHtml);
    } finally {
      await pool.close();
    }
  });

  it('gives a page whose conversion throws its error, and converts the others', async () => {
    const pool = new ConversionPool({ size: 1 });
    try {
      // A selector the selector engine cannot parse throws inside the pipeline.
      const bad = pool.convert(page('/bad'), { ...options, includeTags: ['[[['] }, ['markdown'], limits());
      const good = pool.convert(page('/good'), options, ['markdown'], limits());
      await assert.rejects(bad, (error: unknown) => error instanceof WebwatchError && error.message.length > 0);
      assert.match((await good).markdown, /One paragraph/);
      assert.equal(pool.workers, 1, 'an error is not a crash: the worker stays');
    } finally {
      await pool.close();
    }
  });

  it('fails a page that hangs at its scrape deadline, replaces the worker, and converts the pages queued behind it', { timeout: 30_000 }, async () => {
    const pool = new ConversionPool({ size: 1, workerUrl: misbehaving });
    try {
      const started = Date.now();
      const hung = pool.convert(page('/hang'), options, ['markdown'], limits(500));
      const behind = [1, 2, 3].map((n) => pool.convert(page(`/after-${n}`), options, ['markdown'], limits()));
      await assert.rejects(hung, (error: unknown) => error instanceof WebwatchError && error.status === 408 && /Request Timeout/.test(error.message));
      assert.ok(Date.now() - started < 5_000, 'the hang ends at the deadline');
      for (const [index, converted] of (await Promise.all(behind)).entries()) assert.match(converted.markdown, new RegExp(`# /after-${index + 1}`));
    } finally {
      await pool.close();
    }
  });

  it('fails the page of a worker that crashes and carries on with a new worker', { timeout: 30_000 }, async () => {
    const pool = new ConversionPool({ size: 1, workerUrl: misbehaving });
    try {
      const before = await pool.convert(page('/before'), options, ['markdown'], limits());
      const crashed = pool.convert(page('/crash'), options, ['markdown'], limits());
      const after = pool.convert(page('/after'), options, ['markdown'], limits());
      await assert.rejects(
        crashed,
        (error: unknown) => error instanceof WebwatchError && error.code === 'SCRAPE_CONVERSION_FAILED' && /exit code 7/.test(error.message),
      );
      assert.match(before.markdown, /# \/before/);
      assert.match((await after).markdown, /# \/after/);
    } finally {
      await pool.close();
    }
  });

  it('fails a page that needs more memory than a worker may use, alone', { timeout: 30_000 }, async () => {
    const pool = new ConversionPool({ size: 1, maxHeapMb: 16 });
    try {
      // A worker's heap limit is honoured on V8's usual allocation paths; one allocation far past
      // it (a 400,000-sibling page on a 64 MB worker did it one run in four on Node 24) aborts the
      // whole process instead (nodejs/node#47224). This page, a hundred elements to a parent, on a
      // 16 MB worker, runs out of memory the usual way.
      const huge = { ...page('/huge'), body: Buffer.from(`<html><body>${`<div>${'<p>x</p>'.repeat(100)}</div>`.repeat(4_000)}</body></html>`) };
      await assert.rejects(
        pool.convert(huge, options, ['markdown'], limits()),
        (error: unknown) => error instanceof WebwatchError && /ran out of memory|failed/.test(error.message),
      );
      assert.match((await pool.convert(page('/small'), options, ['markdown'], limits())).markdown, /# \/small/);
    } finally {
      await pool.close();
    }
  });

  it('lets the process exit as soon as its work is done, without waiting for idle workers to stop', { timeout: 30_000 }, async () => {
    const pool = fileURLToPath(new URL('../../src/engine/scrape/convert-pool.js', import.meta.url));
    const script = `
      const { ConversionPool } = await import(${JSON.stringify(pool)});
      const pool = new ConversionPool({ size: 2, idleMs: 60000 });
      const body = Buffer.from('<html><head><title>T</title></head><body><main><p>Some text of the page.</p></main></body></html>');
      const content = await pool.convert({ body, contentType: 'text/html', finalUrl: 'http://127.0.0.1:9/' }, {}, ['markdown'], { deadline: Date.now() + 30000, timeoutMs: 30000, keepRawHtml: false });
      console.log(content.markdown);`;
    const file = join(tempDir(), 'convert-once.mjs');
    writeFileSync(file, script);
    const started = Date.now();
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);
    assert.match(stdout, /Some text of the page/);
    assert.ok(Date.now() - started < 10_000, `exited after ${Date.now() - started} ms`);
  });

  it('keeps a small check on its own thread, hands a large one to the workers, and keeps all with no threads', async () => {
    let made = 0;
    const pool = new ConversionPool({ size: 1 });
    const small = checkConversion(1, () => (made++, pool));
    try {
      small.expect(INLINE_CONVERSIONS);
      for (let n = 0; n < INLINE_CONVERSIONS; n++) await small.convert(page(`/p${n}`), options, ['markdown'], limits());
      assert.equal(made, 0, 'no worker for a handful of pages');
      // Past the handful, the pages go to the workers.
      assert.match((await small.convert(page('/next'), options, ['markdown'], limits())).markdown, /# \/next/);
      assert.equal(made, 1);
      const large = checkConversion(1, () => (made++, pool));
      large.expect(INLINE_CONVERSIONS + 1);
      assert.equal(made, 2, 'workers start as soon as many new pages are known');
      // Not HTML: on this thread.
      const json = await large.convert(
        { body: Buffer.from('{"a":1}'), contentType: 'application/json', finalUrl: 'http://127.0.0.1:9/a.json' },
        options,
        ['markdown'],
        limits(),
      );
      assert.equal(json.markdown, '```json\n{\n  "a": 1\n}\n```');
      assert.equal(made, 2);
      // Without threads, every page on this thread.
      const none = checkConversion(0, () => (made++, pool));
      none.expect(1000);
      for (let n = 0; n < INLINE_CONVERSIONS + 2; n++) await none.convert(page(`/q${n}`), options, ['markdown'], limits());
      assert.equal(made, 2);
    } finally {
      await pool.close();
    }
  });

  it('stops workers that were warmed but got no page, and idle ones, after the idle time', { timeout: 30_000 }, async () => {
    const pool = new ConversionPool({ size: 2, idleMs: 200 });
    try {
      await pool.warm();
      assert.equal(pool.workers, 2);
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(pool.workers, 0, 'warmed workers without work stopped');
      assert.match((await pool.convert(page('/again'), options, ['markdown'], limits())).markdown, /# \/again/);
      assert.equal(pool.workers, 1, 'started again for new work');
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(pool.workers, 0, 'idle workers stopped');
    } finally {
      await pool.close();
    }
  });

  it('sizes itself from the cores: none on two, one on three, at most two', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 16].map((cores) => defaultPoolSize(cores)),
      [0, 0, 1, 2, 2],
    );
  });
});

/** Runs `script` (an ES module) in a Node process of its own: its exit code and what it printed. */
async function runScript(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = join(tempDir(), 'script.mjs');
  writeFileSync(file, script);
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

const poolModule = fileURLToPath(new URL('../../src/engine/scrape/convert-pool.js', import.meta.url));

describe('conversion in child processes', () => {
  it('converts a page as a worker thread does', { timeout: 30_000 }, async () => {
    const threads = new ConversionPool({ size: 1 });
    const processes = new ConversionPool({ size: 1, isolation: 'process' });
    try {
      const input = page('/a', '<p>Caf\u00e9 <b>bold</b> and <a href="/x">a link</a>.</p><ul><li>one</li></ul>');
      const formats = ['markdown', 'links', 'html'];
      const there = await processes.convert(input, { formats: ['markdown', 'links', 'html'] }, formats, limits());
      assert.deepEqual(there, await threads.convert(input, { formats: ['markdown', 'links', 'html'] }, formats, limits()));
      assert.ok(there.markdown.includes('**bold**'), there.markdown);
      // The page's bytes go on standard input, one page after another: each gets its own.
      const many = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          processes.convert(page(`/p${n}`, `<p>${'x'.repeat(n * 70_000)} page ${n}</p>`), options, ['markdown'], { ...limits(), keepRawHtml: true }),
        ),
      );
      for (const [index, converted] of many.entries()) {
        assert.match(converted.markdown, new RegExp(`# /p${index + 1}`));
        assert.equal(converted.rawHtml!.length, page(`/p${index + 1}`, `<p>${'x'.repeat((index + 1) * 70_000)} page ${index + 1}</p>`).body.length);
      }
    } finally {
      await Promise.all([threads.close(), processes.close()]);
    }
  });

  it("fails a page that exhausts a child process's heap with a clear error, and converts the next page", { timeout: 30_000 }, async () => {
    const pool = new ConversionPool({ size: 1, isolation: 'process', maxHeapMb: 16 });
    try {
      const huge = { ...page('/huge'), body: Buffer.from(`<html><body>${`<div>${'<p>x</p>'.repeat(100)}</div>`.repeat(4_000)}</body></html>`) };
      await assert.rejects(
        pool.convert(huge, options, ['markdown'], limits()),
        (error: unknown) =>
          error instanceof WebwatchError &&
          error.code === 'SCRAPE_CONVERSION_FAILED' &&
          error.message === 'converting the page ran out of memory (the limit is 16 MB)',
      );
      assert.match((await pool.convert(page('/small'), options, ['markdown'], limits())).markdown, /# \/small/);
    } finally {
      await pool.close();
    }
  });

  it('survives a page that would abort the whole process from a worker thread', { timeout: 60_000 }, async () => {
    // One array grown past the heap limit aborts the process a worker thread is in
    // (nodejs/node#47224); in a child process it ends that process alone.
    const { code, stdout, stderr } = await runScript(`
      const { ConversionPool } = await import(${JSON.stringify(poolModule)});
      const pool = new ConversionPool({ size: 1, isolation: 'process', maxHeapMb: 64, workerUrl: new URL(${JSON.stringify(misbehaving.href)}) });
      const limits = () => ({ deadline: Date.now() + 50000, timeoutMs: 50000, keepRawHtml: false });
      const at = (path) => ({ body: Buffer.from('<main><p>Text of ' + path + '</p></main>'), contentType: 'text/html', finalUrl: 'http://127.0.0.1:9' + path });
      try {
        await pool.convert(at('/abort'), {}, ['markdown'], limits());
        console.log('converted?');
      } catch (error) {
        console.log('failed: ' + error.message);
      }
      console.log((await pool.convert(at('/after'), {}, ['markdown'], limits())).markdown);
      await pool.close();`);
    assert.equal(code, 0, `the process that asked survives (exit ${code}): ${stderr.slice(-500)}`);
    assert.match(stdout, /failed: converting the page ran out of memory \(the limit is 64 MB\)/);
    assert.match(stdout, /Text of \/after/);
  });

  it("converts an office document in a process of its own, its converter under the scrape's deadline", {
    skip: documentToolsMissing,
    timeout: 120_000,
  }, async () => {
    const pool = new ConversionPool({ size: 1, isolation: 'process' });
    try {
      const docx = { body: minimalDocx('Converted in a process of its own.'), contentType: 'application/octet-stream', finalUrl: 'http://127.0.0.1:9/t.docx' };
      const content = await pool.convert(docx, {}, ['markdown'], { deadline: Date.now() + 60_000, timeoutMs: 60_000, keepRawHtml: false });
      assert.match(content.markdown, /Converted in a process of its own\./);
      // Past its deadline the converter is not started: the error says so, from the process.
      await assert.rejects(pool.convert(docx, {}, ['markdown'], { deadline: Date.now() + 1, timeoutMs: 1, keepRawHtml: false }));
    } finally {
      await pool.close();
    }
  });

  it('lets the process exit as soon as its work is done, without waiting for idle processes to stop', { timeout: 30_000 }, async () => {
    const started = Date.now();
    const { code, stdout } = await runScript(`
      const { ConversionPool } = await import(${JSON.stringify(poolModule)});
      const pool = new ConversionPool({ size: 2, idleMs: 60000, isolation: 'process' });
      const body = Buffer.from('<html><head><title>T</title></head><body><main><p>Some text of the page.</p></main></body></html>');
      const content = await pool.convert({ body, contentType: 'text/html', finalUrl: 'http://127.0.0.1:9/' }, {}, ['markdown'], { deadline: Date.now() + 30000, timeoutMs: 30000, keepRawHtml: false });
      console.log(content.markdown);`);
    assert.equal(code, 0);
    assert.match(stdout, /Some text of the page/);
    assert.ok(Date.now() - started < 10_000, `exited after ${Date.now() - started} ms`);
  });

  it('fails a page that hangs at its scrape deadline and kills its process', { timeout: 30_000 }, async () => {
    const pool = new ConversionPool({ size: 1, isolation: 'process', workerUrl: misbehaving });
    try {
      const hung = pool.convert(page('/hang'), options, ['markdown'], limits(1_000));
      const behind = pool.convert(page('/behind'), options, ['markdown'], limits());
      await assert.rejects(hung, (error: unknown) => error instanceof WebwatchError && error.status === 408);
      assert.match((await behind).markdown, /# \/behind/);
    } finally {
      await pool.close();
    }
  });
});

describe('pages slow to convert', () => {
  const htmlOf = (text: string) => ({ body: Buffer.from(text), contentType: 'text/html; charset=utf-8', finalUrl: 'http://127.0.0.1:9/' });

  it('are judged on their bytes: size, and for HTML the count of tags', () => {
    assert.equal(slowToConvert(page('/ordinary')), false);
    assert.equal(slowToConvert(htmlOf(`<p>${'x'.repeat(OFF_LOOP_MIN_BYTES)}</p>`)), true);
    // Small in bytes, but thousands of elements.
    assert.equal(slowToConvert(htmlOf('<b></b>'.repeat(OFF_LOOP_MIN_TAGS / 2))), true);
    assert.equal(slowToConvert(htmlOf('<b></b>'.repeat(OFF_LOOP_MIN_TAGS / 2 - 1))), false);
    const large = Buffer.alloc(OFF_LOOP_MIN_BYTES, 'a');
    assert.equal(slowToConvert({ body: large, contentType: 'application/json' }), true);
    assert.equal(slowToConvert({ body: large, contentType: 'text/plain' }), true);
    // Not decoded here: images and other bytes; PDFs are read by child tools.
    assert.equal(slowToConvert({ body: large, contentType: 'image/png' }), false);
    assert.equal(slowToConvert({ body: Buffer.concat([Buffer.from('%PDF-1.7\n'), large]), contentType: 'application/pdf' }), false);
    // Office documents, however small: their converted HTML is many times their bytes.
    assert.equal(slowToConvert({ body: minimalDocx('a line'), contentType: 'application/octet-stream', finalUrl: 'http://127.0.0.1:9/a' }), true);
    assert.equal(slowToConvert({ body: Buffer.from('a,b\n1,2\n'), contentType: 'text/csv', finalUrl: 'http://127.0.0.1:9/a.csv' }), true);
    assert.equal(
      slowToConvert({ body: Buffer.from('PK\x03\x04 a zip of nothing'), contentType: 'application/zip', finalUrl: 'http://127.0.0.1:9/a.zip' }),
      false,
    );
  });

  it('go to the pool, and the others are converted here', async () => {
    const sent: string[] = [];
    const pool = {
      convert: async (input: { finalUrl: string }) => (sent.push(input.finalUrl), { markdown: 'from the pool', links: [], images: [], metadata: {} }),
    } as unknown as ConversionPool;
    const convert = offLoopConversion(() => pool);
    const small = await convert(page('/small'), options, ['markdown'], limits());
    assert.match(small.markdown, /# \/small/);
    const slow = await convert({ ...htmlOf('<b></b>'.repeat(OFF_LOOP_MIN_TAGS)), finalUrl: 'http://127.0.0.1:9/slow' }, options, ['markdown'], limits());
    assert.equal(slow.markdown, 'from the pool');
    assert.deepEqual(sent, ['http://127.0.0.1:9/slow']);
  });

  it("go to a check's own converter (a server's) however few its pages, before its threads", async () => {
    const here: string[] = [];
    const converter = async (input: { finalUrl: string }) => (here.push(input.finalUrl), { markdown: 'here', links: [], images: [], metadata: {} });
    let made = 0;
    const threads = new ConversionPool({ size: 1 });
    try {
      const conversion = checkConversion(1, () => (made++, threads), converter);
      conversion.expect(INLINE_CONVERSIONS + 1);
      const slow = { ...htmlOf('<b></b>'.repeat(OFF_LOOP_MIN_TAGS)), finalUrl: 'http://127.0.0.1:9/slow' };
      assert.equal((await conversion.convert(slow, options, ['markdown'], limits())).markdown, 'here');
      // An ordinary page of a large check goes to the threads.
      assert.match((await conversion.convert(page('/ordinary'), options, ['markdown'], limits())).markdown, /# \/ordinary/);
      assert.deepEqual(here, ['http://127.0.0.1:9/slow']);
      assert.ok(made > 0, 'the ordinary page asked for the threads');
    } finally {
      await threads.close();
    }
  });

  it('get one process on two cores, where the main thread needs the other, and at most four', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 8, 64].map((cores) => offLoopPoolSize(cores)),
      [1, 1, 2, 3, 4, 4],
    );
  });
});
