/**
 * `webwatch serve` as a child process (bin/webwatch.js), on a free port of 127.0.0.1, with
 * --json, so that it says where it listens. Ask its API with call() (webwatch-server.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  /** The API's base, ending in /v2. */
  url: string;
  /** The address without /v2 (the health route). */
  origin: string;
  stderr(): string;
  /** SIGTERM, and the exit code once it has drained. */
  stop(): Promise<number | null>;
  /** SIGKILL: no draining, no clean-up. */
  kill(): Promise<void>;
}

export interface ServeProcessOptions {
  /** --allow-private-targets, as serveWebwatch allows them: the tests' sites are on 127.0.0.1. True unless false. */
  allowPrivateTargets?: boolean;
}

/** `args` after serve's own; `env` over this process's environment, where XDG_CONFIG_HOME names no directory unless `env` sets it (no user configuration is read). */
export async function serveProcess(args: string[], env: Record<string, string>, options: ServeProcessOptions = {}): Promise<ServeProcess> {
  const { allowPrivateTargets = true } = options;
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...(allowPrivateTargets ? ['--allow-private-targets'] : []), '--json', ...args], {
    env: { ...process.env, XDG_CONFIG_HOME: '/nonexistent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url: string = await new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      try {
        resolve(JSON.parse(stdout).url);
      } catch {
        // Not the whole document yet.
      }
    });
    void exited.then((code) => reject(new Error(`serve ended early (${code}): ${stderr}`)));
  });
  return {
    child,
    url,
    origin: url.replace(/\/v2$/, ''),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
