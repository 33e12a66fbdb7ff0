// `webwatch serve` as its own process for the benches: a team key, limits raised out of the way,
// and the API's base URL once the server says where it listens.
import { spawn, spawnSync } from 'node:child_process';

export async function startServe(bin, env, extraArgs = []) {
  const key = JSON.parse(spawnSync(process.execPath, [bin, 'keys', 'create', '--team', 'bench', '--json'], { env, encoding: 'utf8' }).stdout).key;
  const server = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--json', '--quiet', '--allow-private-targets', '--rate-limit', '100000000', ...extraArgs],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const base = await new Promise((resolve) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      try {
        resolve(JSON.parse(out).url);
      } catch {
        // Not all of it yet.
      }
    });
  });
  return { server, base, key, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
}
