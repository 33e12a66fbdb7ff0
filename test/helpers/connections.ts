/**
 * The TCP connections this process starts, while watched. One to anything but loopback is
 * failed before it is made: a test of the private-address rule that fails (the rule let an
 * address through) must not send a packet beyond this machine, which an IPv6 address that
 * carries 127.0.0.1 would otherwise do, by the default route.
 */
import { Socket } from 'node:net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

export interface WatchedConnections {
  /** Host and port of every connection asked for, in order. */
  attempts: { host: string; port: number }[];
  stop(): void;
}

type ConnectOptions = { host?: string; port?: number | string; path?: string };

export function watchConnections(): WatchedConnections {
  const attempts: WatchedConnections['attempts'] = [];
  const connect = Socket.prototype.connect;
  Socket.prototype.connect = function watchedConnect(this: Socket, ...args: unknown[]) {
    // net.connect passes its normalised [options, callback]; a direct call passes options or port, host.
    const first = args[0];
    const options: ConnectOptions = Array.isArray(first)
      ? (first[0] as ConnectOptions)
      : typeof first === 'object' && first !== null
        ? (first as ConnectOptions)
        : { port: first as number, host: args[1] as string };
    if (options.path === undefined) {
      const host = options.host ?? 'localhost';
      attempts.push({ host, port: Number(options.port) });
      if (!LOOPBACK_HOSTS.has(host)) {
        process.nextTick(() =>
          this.destroy(Object.assign(new Error(`connect ECONNREFUSED ${host} (tests connect to loopback only)`), { code: 'ECONNREFUSED' })),
        );
        return this;
      }
    }
    return (connect as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;
  return {
    attempts,
    stop: () => {
      Socket.prototype.connect = connect;
    },
  };
}
