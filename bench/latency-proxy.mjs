// A TCP proxy on 127.0.0.1 that delays every chunk by `delayMs` each way, so that a database
// on the same machine answers as one across a network does (a round trip costs twice the delay,
// plus the timer's own slack: measure it with roundTripMs). The kernel's netem would do this
// below the sockets, but it is not always there (a container's kernel may lack sch_netem).
// It also counts round trips: a turn of the conversation is the client speaking after the
// server has, per connection.
import net from 'node:net';

/** Starts the proxy in front of host:port; `delayMs` 0 forwards at once (the proxy's own cost alone). */
export async function startLatencyProxy({ host = '127.0.0.1', port, delayMs }) {
  let roundTrips = 0;
  /** Statements seen, by their text's start (best effort: messages split across chunks are missed). */
  const statements = new Map();
  const noteStatements = (chunk) => {
    for (let at = 0; at + 5 <= chunk.length; ) {
      const type = String.fromCharCode(chunk[at]);
      const length = chunk.readUInt32BE(at + 1);
      if (length < 4) break;
      if (type === 'Q' || type === 'P') {
        const body = chunk.subarray(at + 5, Math.min(chunk.length, at + 1 + length));
        const text = type === 'Q' ? body.toString('utf8') : body.subarray(body.indexOf(0) + 1).toString('utf8');
        const key = text
          .replace(/\0[\s\S]*$/, '')
          .replace(/\s+/g, ' ')
          .slice(0, 90);
        statements.set(key, (statements.get(key) ?? 0) + 1);
      }
      at += 1 + length;
    }
  };
  const sockets = new Set();
  const later = delayMs > 0 ? (action) => setTimeout(action, delayMs) : (action) => action();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    let clientSpoke = false;
    client.on('data', (chunk) => {
      if (!clientSpoke) roundTrips++;
      clientSpoke = true;
      noteStatements(chunk);
      later(() => upstream.write(chunk));
    });
    upstream.on('data', (chunk) => {
      clientSpoke = false;
      later(() => client.write(chunk));
    });
    const close = (other) => () => later(() => other.destroy());
    client.on('close', close(upstream));
    upstream.on('close', close(client));
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    roundTrips: () => roundTrips,
    statements: () => new Map(statements),
    /** The address `url` names, through the proxy instead. */
    through: (url) => {
      const address = new URL(url);
      address.port = String(server.address().port);
      return address.toString();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The median time of `SELECT 1` over `url` (a PostgreSQL address), in ms. */
export async function roundTripMs(url, samples = 200) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const times = [];
  for (let i = 0; i < samples; i++) {
    const started = process.hrtime.bigint();
    await client.query('SELECT 1');
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await client.end();
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)] * 100) / 100;
}
