/** The backend a command acts on: today the embedded engine, with the configuration applied. */
import type { Backend } from '../backend/backend.js';
import { localBackend } from '../backend/local/local-backend.js';
import { loadConfig } from '../config/config.js';
import type { CommandContext } from './context.js';
import { version } from './program.js';

export async function backendFor(context: CommandContext, doing: string): Promise<Backend> {
  const { io, output } = context;
  const config = await loadConfig(io.env, io.cwd());
  const backend = localBackend({ version: version(), env: io.env, now: io.now, threatPolicy: config.threatPolicy });
  output.notice(`${doing} with ${backend.description}`);
  return backend;
}

/** Runs `work` with a backend and closes it whatever happens. */
export async function withBackend<T>(context: CommandContext, doing: string, work: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await backendFor(context, doing);
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}
