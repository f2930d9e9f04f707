// One `tfgate serve` for the benches: a real process on loopback with a fresh (or given) data dir, the
// bootstrap key, no rate limit and no drift schedule, production logging. Resolves once it logs "listening".
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * `echoStderr` passes the service's start-up notices through to this process's stderr.
 * @param {{ cli: string, cwd: string, key: string, env?: Record<string, string>, dataDir?: string,
 *   prefix?: string, echoStderr?: boolean }} options
 */
export async function startServe({
  cli,
  cwd,
  key,
  env = {},
  dataDir,
  prefix = 'tfgate-bench-svc-',
  echoStderr = false,
}) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), prefix));
  const spawned = performance.now();
  const child = spawn(process.execPath, [cli, 'serve'], {
    cwd,
    env: {
      ...process.env,
      TFGATE_HOST: '127.0.0.1',
      TFGATE_PORT: '0',
      TFGATE_DATA_DIR: dir,
      TFGATE_BOOTSTRAP_API_KEY: key,
      TFGATE_RATE_LIMIT: '0',
      TFGATE_DRIFT_INTERVAL: '0',
      // Production logging: one JSON line per request, read (and dropped) by this process.
      TFGATE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
    if (echoStderr) process.stderr.write(c);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let readyMs;
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start\n${stderr}`)), 120_000);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let entry;
      try {
        entry = JSON.parse(line); // our own service's log line
      } catch {
        return;
      }
      if (entry.msg !== 'listening') return;
      clearTimeout(timer);
      readyMs = performance.now() - spawned;
      // From here on the request log is read and dropped unparsed, as a log shipper would take it.
      lines.close();
      child.stdout.resume();
      resolve(entry.url);
    });
    exited.then((code) => reject(new Error(`serve exited ${code}\n${stderr}`)));
  });
  return {
    url,
    child,
    pid: child.pid,
    dataDir: dir,
    /** From spawn to the "listening" log line: Node's start-up, the store opened and migrated, the key. */
    readyMs,
    /** SIGTERM and wait for the exit; the data dir is removed unless `keep`. */
    async stop({ keep = false } = {}) {
      child.kill('SIGTERM');
      await exited;
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}
