/** The remote backend reads every page of the monitor list, and never loops on a server that ignores paging. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { remoteBackend } from '../../src/backend/remote/remote-backend.js';
import { startServer } from '../helpers/server.js';

const monitors = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `mon_${i}`, name: `Monitor ${i}` }));

/** A v2 server holding `all` monitors that answers GET /v2/monitor as `paging` says. */
async function listing(all: { id: string }[], paging: 'honours' | 'ignores both' | 'ignores offset', defaultLimit = 25) {
  const server = await startServer({
    '/v2/monitor': (request, response) => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams;
      const limit = paging === 'ignores both' ? all.length : Number(query.get('limit') ?? defaultLimit);
      const offset = paging === 'honours' ? Number(query.get('offset') ?? 0) : 0;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: all.slice(offset, offset + limit) }));
    },
  });
  const backend = remoteBackend({ baseUrl: server.origin, apiKey: 'ww_key', version: 'test' });
  return { server, backend };
}

describe('remote monitor list', () => {
  it('walks the pages until a short one: 230 monitors in three requests', async () => {
    const { server, backend } = await listing(monitors(230), 'honours');
    const listed = await backend.monitors.list();
    assert.equal(listed.length, 230);
    assert.deepEqual(
      listed.map((monitor) => monitor.id),
      monitors(230).map((monitor) => monitor.id),
    );
    assert.equal(server.requests.length, 3);
    await backend.close();
    await server.close();
  });

  it('stops after one request when the server answers everything at once', async () => {
    const { server, backend } = await listing(monitors(130), 'ignores both');
    assert.equal((await backend.monitors.list()).length, 130);
    assert.equal(server.requests.length, 1);
    await backend.close();
    await server.close();
  });

  it('stops when a page repeats monitors already seen (a server that ignores offset)', async () => {
    const { server, backend } = await listing(monitors(150), 'ignores offset');
    const listed = await backend.monitors.list();
    assert.equal(listed.length, 100);
    assert.equal(new Set(listed.map((monitor) => monitor.id)).size, 100);
    assert.equal(server.requests.length, 2);
    await backend.close();
    await server.close();
  });
});
