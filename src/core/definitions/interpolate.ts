/**
 * `${VAR}` and `${VAR:-default}` in definition files, replaced from the environment.
 * `$${` stands for a literal `${`. Substituted text is not scanned again.
 */
import type { Env } from '../../lib/env.js';

export type Interpolation = { ok: true; value: string; changed: boolean } | { ok: false; message: string };

const REFERENCE = /\$\$\{|\$\{([^}]*)(\})?/g;
const BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

export function interpolate(text: string, env: Env): Interpolation {
  if (!text.includes('${')) return { ok: true, value: text, changed: false };
  let problem: string | undefined;
  const value = text.replace(REFERENCE, (match, body: string | undefined, closed: string | undefined) => {
    if (match === '$${') return '${';
    if (problem) return match;
    if (closed === undefined) {
      problem = `"${match}" is not closed: write \${NAME} or \${NAME:-default}`;
      return match;
    }
    const parsed = BODY.exec(body ?? '');
    if (!parsed) {
      problem = `"${match}" is not a variable reference: write \${NAME} or \${NAME:-default}`;
      return match;
    }
    const [, name, fallback] = parsed as unknown as [string, string, string | undefined];
    const current = env[name];
    // As in the shell, `:-` also covers a variable that is set but empty.
    if (current !== undefined && (fallback === undefined || current !== '')) return current;
    if (fallback !== undefined) return fallback;
    problem = `environment variable ${name} is not set (write \${${name}:-default} to give a default)`;
    return match;
  });
  return problem ? { ok: false, message: problem } : { ok: true, value, changed: true };
}
