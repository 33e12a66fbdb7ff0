/**
 * An agent run on a real pseudo-terminal with colour on, as a person sees it: the timeline in
 * webwatch's own colours (never printed as `\x1b[…` text), text from the model and the pages
 * still escaped, a status line that ticks while the model thinks, and the summary at the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { run } from '../helpers/io.js';
import { inTerminal } from '../helpers/terminal.js';

const ESC = '\u001b';

describe('agent run on a colour terminal', () => {
  let site: TestServer;
  let model: FakeLlm;

  before(async () => {
    site = await startServer({
      '/about': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html><head><title>About</title></head><body><main><h1>About</h1><p>Founded in 1999 in Lyon.</p></main></body></html>'),
    });
    // Turns of 1.5 s: long enough for the status line to tick several times.
    model = await startFakeLlm((request): FakeReply => {
      const turn = request.messages.filter((m) => m.role === 'assistant').length;
      if (request.messages.some((m) => m.content?.includes('something bad')))
        return { toolCalls: [{ name: 'refuse', arguments: { reason: `not ${ESC}[5mthat${ESC}[0m` } }] };
      if (turn === 0)
        return {
          content: `Reading the page ${ESC}[31mnow${ESC}[0m.`,
          toolCalls: [{ name: 'scrape', arguments: { url: `${site.origin}/about` } }],
          delayMs: 1500,
        };
      return { toolCalls: [{ name: 'finish', arguments: { result: { founded: 1999 } } }], delayMs: 1500 };
    });
  });
  after(async () => {
    await model.close();
    await site.close();
  });

  it('styles the timeline for real, escapes what came from outside, ticks while the model thinks, sums up at the end', async () => {
    const env = {
      WEBWATCH_HOME: tempDir(),
      XDG_CONFIG_HOME: writeFiles({ 'webwatch/config.yaml': `llm: {baseUrl: "${model.url}", model: scripted}\n` }),
      TERM: 'xterm-256color',
      FORCE_COLOR: '1',
    };
    const ran = await inTerminal(['agent', 'run', 'When was it founded?', '--url', `${site.origin}/about`], { env, cols: 120 });
    assert.equal(ran.code, 0, ran.raw);
    // webwatch's own styling reaches the terminal as escape sequences, never as their text.
    assert.match(ran.raw, new RegExp(`${ESC}\\[1mtool_call\\.started`));
    assert.match(ran.raw, new RegExp(`${ESC}\\[2m\\d\\d:\\d\\d:\\d\\d${ESC}\\[22m`));
    assert.doesNotMatch(ran.raw, /\\x1b\[(1|2|22|32|39)m/, 'no styling of ours printed as text');
    // The model's own escape sequence is shown, not obeyed.
    assert.ok(
      ran.screen.some((line) => line.includes('Reading the page \\x1b[31mnow\\x1b[0m.')),
      ran.screen.join('\n'),
    );
    assert.ok(!ran.raw.includes(`${ESC}[31mnow`), 'the model did not colour the terminal');
    // The status line ticked during each model turn: several times, with the seconds moving.
    const ticks = new Set([...ran.raw.matchAll(/model turn 1, (\d+(?:\.\d)? m?s)/g)].map((m) => m[1]));
    assert.ok(ticks.size >= 3, `status line times seen: ${[...ticks].join(', ')}`);
    assert.ok(
      ran.screen.some((line) => /tool_call\.finished\s+scrape -> .*\d+ ms$/.test(line)),
      'the tool call with its duration',
    );
    assert.ok(
      ran.screen.some((line) => /^succeeded in \d\.\d s: 2 model turns, 1 tool call, 3 credits, 2 snapshots$/.test(line)),
      ran.screen.join('\n'),
    );
    // The status line is gone at the end: the screen's last lines are the result and the summary.
    assert.ok(!ran.screen.some((line) => /model turn \d, \d/.test(line)), 'no status line left on the screen');
    assert.ok(ran.screen.some((line) => line.includes('"founded": 1999')));

    // The trace read again later, by id prefix: the same timeline on stdout, styled for real.
    const [job] = JSON.parse((await run(['agent', 'list', '--json'], { env })).stdout) as { id: string }[];
    const trace = await inTerminal(['agent', 'trace', job!.id.slice(0, 8)], { env, cols: 120 });
    assert.equal(trace.code, 0, trace.raw);
    assert.match(trace.raw, new RegExp(`${ESC}\\[1mrun\\.started`));
    assert.doesNotMatch(trace.raw, /\\x1b\[(1|2|22|39)m/, 'no styling of ours printed as text');
    assert.ok(trace.screen.some((line) => line.includes('Reading the page \\x1b[31mnow\\x1b[0m.')));

    // A run that ends badly: its error line in red, the refusal's text escaped.
    const refused = await inTerminal(['agent', 'run', 'do something bad'], { env, cols: 120 });
    assert.equal(refused.code, 9, refused.raw);
    assert.match(refused.raw, new RegExp(`${ESC}\\[31merror:${ESC}\\[39m The agent refused the task: not \\\\x1b\\[5mthat`));
  });
});
