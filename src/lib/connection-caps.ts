/**
 * Connection caps of an HTTP server, so that one client cannot shut the others out: each
 * client address (an IPv6 /64, which one host usually holds whole) holds at most `perAddress`
 * connections, and a connection over that is closed as it arrives, before the server reads a
 * byte of it; the server holds at most `total`, and when it is full a newcomer takes the place
 * of the connection that has waited longest without sending a whole request's headers (a slow
 * sender), or else of the idle keep-alive connections, never of one whose request is under way.
 * Node's own `maxConnections` closes every newcomer once the server is full, whoever holds it.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { isIPv6, type Socket } from 'node:net';

export interface ConnectionCaps {
  /** Connections open at once. */
  total: number;
  /** Connections of one client address at once; 0 for no cap (every client behind one proxy). */
  perAddress: number;
}

export interface CappedConnections {
  /** Connections open now, and of how many addresses. */
  counts(): { open: number; addresses: number };
}

/** The client a connection is counted against: an IPv4 address (also IPv4-mapped IPv6), or an IPv6 /64. */
export function clientOf(address: string | undefined): string {
  if (address === undefined) return '';
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export function capConnections(server: HttpServer, caps: ConnectionCaps): CappedConnections {
  const perClient = new Map<string, number>();
  let open = 0;
  /** Connections that have not sent a whole request's headers yet, in the order they came: the oldest first. */
  const fresh = new Set<Socket>();
  const all = new Set<Socket>();

  const release = (socket: Socket, client: string) => {
    open--;
    fresh.delete(socket);
    all.delete(socket);
    const left = (perClient.get(client) ?? 1) - 1;
    if (left === 0) perClient.delete(client);
    else perClient.set(client, left);
  };
  /**
   * Closes the connection that has waited longest without sending whole headers; with none,
   * the idle keep-alive connections (Node knows which have no request under way). False when
   * every connection has a request under way.
   */
  const makeRoom = (): boolean => {
    for (const socket of fresh) {
      fresh.delete(socket);
      // One closed already (its headers' time ran out) frees its place once its close is told.
      if (socket.destroyed) continue;
      socket.destroy();
      return true;
    }
    server.closeIdleConnections();
    // Their closes are told later; the ones it closed are destroyed at once.
    for (const socket of all) if (socket.destroyed) return true;
    return false;
  };
  const refuse = (socket: Socket) => {
    // A reset leaves nothing behind on this side (no FIN handshake, no TIME_WAIT).
    if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else socket.destroy();
  };

  // The server's own connection listeners (Node's HTTP parser) run only for connections let in,
  // so that a refused one costs nothing but its accept.
  const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket.remoteAddress);
    const held = perClient.get(client) ?? 0;
    if (caps.perAddress > 0 && held >= caps.perAddress) return refuse(socket);
    if (open >= caps.total && !makeRoom()) return refuse(socket);
    open++;
    perClient.set(client, held + 1);
    fresh.add(socket);
    all.add(socket);
    socket.once('close', () => release(socket, client));
    for (const listener of listeners) listener.call(server, socket);
  });

  // Whole headers: the connection is no longer fresh. The request handlers are called from one
  // listener of ours (a second listener would make every request's emit copy the list).
  const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  const [only] = handlers;
  server.on(
    'request',
    handlers.length === 1 && only
      ? (request: IncomingMessage, response: ServerResponse) => {
          fresh.delete(request.socket);
          only.call(server, request, response);
        }
      : (request: IncomingMessage, response: ServerResponse) => {
          fresh.delete(request.socket);
          for (const handler of handlers) handler.call(server, request, response);
        },
  );
  // A WebSocket (or other upgrade) took its connection over for good.
  server.prependListener('upgrade', (request: IncomingMessage) => void fresh.delete(request.socket));
  return { counts: () => ({ open, addresses: perClient.size }) };
}
