#!/usr/bin/env node
// Receives webwatch's webhooks on 127.0.0.1 and prints each one, for the README's walk-through.
// Usage: node examples/site/receive-webhook.mjs [port]   (else $HOOK_PORT, else 8081; 0 picks a free port)
// The payload's full shape is in docs/notifications.md, "Webhooks".
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? process.env.HOOK_PORT ?? 8081);

function describe(event) {
  const lines = [];
  for (const item of event?.data ?? []) {
    if (event.type === 'monitor.check.completed') {
      const s = item.summary;
      lines.push(
        `${event.type}  ${item.monitorName}  check ${item.status}: ${s.changed} changed, ${s.new} new, ${s.removed} removed, ${s.same} same, ${s.error} errors`,
      );
      continue;
    }
    const meaningful = item.isMeaningful == null ? '' : item.isMeaningful ? '  (meaningful)' : '  (not meaningful)';
    lines.push(`${event.type}  ${item.monitorName}  ${item.status}  ${item.url}${meaningful}`);
    if (item.judgment) lines.push(`  ${item.judgment.reason}`);
    if (item.diff) lines.push(item.diff.text.replace(/^=+\n/, '').trimEnd());
  }
  return lines.join('\n');
}

const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    let event;
    try {
      event = JSON.parse(body);
    } catch {
      console.log(`${request.method} ${request.url}: not JSON (${body.length} characters)`);
      response.writeHead(400).end();
      return;
    }
    console.log(describe(event));
    // Any 2xx tells webwatch the delivery arrived; anything else makes it try again or give up.
    response.writeHead(204).end();
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`Waiting for webhooks on http://127.0.0.1:${server.address().port}/`);
});
