// The fixtures of bench/agent-jobs.mjs, in a process of their own: a site on 127.0.0.1 and a
// scripted OpenAI-compatible model that scrapes three pages (answering after 500 ms a turn, as a fast real model might) and
// finishes. Prints {"site", "model"} (their origins) on one line.
import { createServer } from 'node:http';

const listen = async (handler) => {
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
};
const site = await listen((_q, r) =>
  r.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Page</h1>${'<p>Some text of the page.</p>'.repeat(50)}</main>`),
);
let calls = 0;
const model = await listen((request, response) => {
  let text = '';
  request.on('data', (chunk) => (text += chunk));
  request.on('end', () => {
    calls++;
    const body = JSON.parse(text);
    const turn = body.messages.filter((m) => m.role === 'assistant').length;
    const call =
      turn < 3
        ? { name: 'scrape', arguments: JSON.stringify({ url: `${site}/p${turn}` }) }
        : { name: 'finish', arguments: JSON.stringify({ result: { turns: turn } }) };
    const message = { role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: call }] };
    setTimeout(
      () =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `c${calls}`,
            object: 'chat.completion',
            created: 0,
            model: body.model,
            choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        ),
      500,
    );
  });
});
process.stdout.write(`${JSON.stringify({ site, model })}\n`);
