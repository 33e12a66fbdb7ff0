/**
 * serve's request log for a person: one line per request (time, method, path, status, duration),
 * read from the JSON lines the server's logger writes, which stay the format for pipes and log
 * collectors. Paths come from clients: their control characters are escaped.
 */
import type { OutputStream } from './io.js';
import type { Style } from './style.js';
import { escapeControls } from './terminal-text.js';

interface LogLine {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; path?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string };
}

/** Requests seen but not yet answered; a bound in case answers are never logged. */
const MAX_PENDING = 10_000;
const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

export function readableServeLog(stream: OutputStream, style: Style): { write(line: string): void } {
  const pending = new Map<string, string>();
  const clock = (time: number | undefined) => new Date(time ?? Date.now()).toTimeString().slice(0, 8);
  const statusStyle = (status: number) => (status >= 500 ? style.red : status >= 400 ? style.yellow : style.green);
  return {
    write(text: string) {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        stream.write(escapeControls(text));
        return;
      }
      if (line.req && line.reqId) {
        // "incoming request": kept until its answer, which is the line a person reads.
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
        pending.set(line.reqId, escapeControls(`${line.req.method ?? '?'} ${line.req.path ?? ''}`));
        return;
      }
      if (line.res && line.reqId) {
        const request = pending.get(line.reqId) ?? '';
        pending.delete(line.reqId);
        const status = line.res.statusCode ?? 0;
        const took = line.responseTime === undefined ? '' : `  ${line.responseTime < 10 ? line.responseTime.toFixed(1) : Math.round(line.responseTime)} ms`;
        stream.write(`${style.dim(clock(line.time))}  ${request}  ${statusStyle(status)(String(status))}${took}\n`);
        return;
      }
      const level = LEVELS[line.level ?? 30] ?? 'info';
      const detail = line.err?.message && line.err.message !== line.msg ? `: ${line.err.message}` : '';
      const said = escapeControls(`${line.msg ?? ''}${detail}`);
      stream.write(`${style.dim(clock(line.time))}  ${level === 'info' ? said : (level === 'warn' ? style.yellow : style.red)(`${level}: ${said}`)}\n`);
    },
  };
}
