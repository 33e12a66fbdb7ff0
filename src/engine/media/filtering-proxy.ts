/**
 * An HTTP proxy on 127.0.0.1, for the length of one media scrape, through which ffmpeg and
 * ffprobe fetch every manifest and segment (`-http_proxy`): each URL is judged by the scrape's
 * URL rule (serve's private-address rule, threat protection) before anything is asked of it,
 * sockets connect only to public addresses where the rule says so (a name that resolves to a
 * private address after the check is refused too), and the bytes that pass are counted against a
 * cap. HTTPS goes through CONNECT, judged by its host and port.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { publicOnlyLookup } from '../fetch/network-policy.js';

export interface FilteringProxy {
  /** `http://127.0.0.1:PORT`, for ffmpeg's -http_proxy. */
  url: string;
  /** The first refusal, when the rule refused a URL (the tool then fails). */
  refusal(): unknown;
  close(): Promise<void>;
}

export interface FilteringProxyOptions {
  checkUrl: (url: URL) => void | Promise<void>;
  /** Connect to public addresses only (serve's rule), whatever a name resolves to later. */
  publicAddressesOnly: boolean;
  /** Bytes from upstream, all requests together, past which every transfer is cut. */
  maxBytes: number;
}

const HOP_BY_HOP = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);

export async function filteringProxy(options: FilteringProxyOptions): Promise<FilteringProxy> {
  let refused: unknown;
  let bytes = 0;
  const sockets = new Set<Socket>();
  const counted = (chunk: Buffer, stop: () => void) => {
    bytes += chunk.length;
    if (bytes > options.maxBytes) stop();
  };
  const judge = async (url: URL): Promise<boolean> => {
    try {
      await options.checkUrl(url);
      return true;
    } catch (error) {
      refused ??= error;
      return false;
    }
  };
  const lookup = options.publicAddressesOnly ? { lookup: publicOnlyLookup } : {};

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      return void response.writeHead(400).end();
    }
    if (target.protocol !== 'http:' || !(await judge(target))) return void response.writeHead(403).end();
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const upstream = httpRequest(target, { method: request.method, headers, ...lookup }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name))));
      answer.on('data', (chunk: Buffer) => counted(chunk, () => upstream.destroy()));
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  server.on('connect', async (request: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const [host, port] = /^\[?([^\]]+)\]?:(\d+)$/.exec(request.url ?? '')?.slice(1) ?? [];
    if (!host || !port || !(await judge(new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}/`))))
      return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    const upstream = connect({ host, port: Number(port), ...lookup }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('data', (chunk: Buffer) => counted(chunk, () => upstream.destroy()));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refusal: () => refused,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
