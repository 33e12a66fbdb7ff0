/**
 * Control characters in page text (a window title set with OSC 0, the clipboard written with
 * OSC 52) never leave webwatch: not on stdout behind a pipe, not in metadata, not in a mail,
 * not in an assistant's answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { withoutControls } from '../../src/engine/content/control-characters.js';
import { diffMarkdown } from '../../src/engine/diff/markdown-diff.js';
import { emailEntries } from '../../src/engine/notify/outbox.js';
import type { StoredMonitor } from '../../src/engine/monitors/monitor-store.js';
import type { CheckRecord } from '../../src/contract/checks.js';
import { textResult } from '../../src/mcp/results.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';

const TITLE = '\u001b]0;PWNED\u0007';
const CLIPBOARD = '\u001b]52;c;ZWNobyBldmls\u001b\\';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('control characters in page text', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      '/page': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            `<html><head><title>Opening hours${TITLE}</title></head><body><main><h1>Opening hours</h1><p>Open from nine${CLIPBOARD} to five, every day of the week but Sunday, when the shop stays closed all day.</p></main></body></html>`,
          ),
      '/plain': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`Opening hours${TITLE}\r\nOpen from nine${CLIPBOARD} to five\u009b31m.\r\n\tTab stays.\n`),
    });
  });
  after(() => server.close());

  it('go from markdown on stdout behind a pipe, HTML and plain text alike, the words kept', async () => {
    for (const path of ['/page', '/plain']) {
      const scraped = await run(['scrape', `${server.origin}${path}`]);
      assert.equal(scraped.code, 0, scraped.stderr);
      assert.doesNotMatch(scraped.stdout, CONTROL, path);
      assert.match(scraped.stdout, /Open from nine(?:\]52;c;ZWNobyBldmls\\{1,2})? to five/, path);
    }
    const plain = (await run(['scrape', `${server.origin}/plain`])).stdout;
    assert.match(plain, /\n\tTab stays\./);
  });

  it('go from the metadata', async () => {
    const document = JSON.parse((await run(['scrape', `${server.origin}/page`, '--json'])).stdout);
    assert.equal(document.data.metadata.title, 'Opening hours]0;PWNED');
  });

  it("go from an e-mail summary and from an assistant's answer, whatever they were built from", () => {
    const monitor = {
      id: 'm',
      team: 'local',
      definition: { name: 'Hours', notification: { email: { enabled: true, includeDiffs: true, recipients: ['ops@example.com'] } } },
    } as unknown as StoredMonitor;
    const check = {
      id: 'c',
      finishedAt: '2026-12-01T00:00:00.000Z',
      summary: { changed: 1, new: 0, removed: 0, same: 0, error: 0, totalPages: 1 },
    } as unknown as CheckRecord;
    // A diff kept before page text lost its controls.
    const diff = diffMarkdown('Open from nine', `Open from nine${CLIPBOARD} to five`);
    const [entry] = emailEntries(
      monitor,
      check,
      [
        {
          url: 'https://shop.example/',
          targetId: 't',
          status: 'changed',
          statusCode: 200,
          previousScrapeId: 'a',
          currentScrapeId: 'b',
          diff,
          judgment: null,
          error: null,
        },
      ],
      new Date(),
    );
    const message = JSON.parse(entry!.body) as { text: string; html: string; subject: string };
    assert.match(message.text, /Open from nine/);
    for (const part of [message.text, message.html, message.subject]) assert.doesNotMatch(part, CONTROL);
    const answer = textResult(`Opening hours${TITLE}\nOpen${CLIPBOARD}`);
    assert.deepEqual(answer.content, [{ type: 'text', text: 'Opening hours]0;PWNED\nOpen]52;c;ZWNobyBldmls\\' }]);
  });

  it('are C0 but tab and newline, DEL and C1; a carriage return ends a line', () => {
    assert.equal(withoutControls('a\u0000b\u0007c\u001bd\u007fe\u0085f\u009bg\th\ni'), 'abcdef' + 'g\th\ni');
    assert.equal(withoutControls('one\r\ntwo\rthree'), 'one\ntwo\nthree');
    assert.equal(withoutControls('é ü 中文 — plain'), 'é ü 中文 — plain');
  });
});
