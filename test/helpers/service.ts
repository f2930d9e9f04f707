// Start a real tfgate service on 127.0.0.1:0 with a temporary data dir and a bootstrap admin key.
// In process by default (fast); `process: true` runs `tfgate serve` as a child process from source.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { resolveServeConfig, startService as startInProcess } from '../../src/service/index.js';
import type { Store } from '../../src/service/store/index.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

export interface StartServiceOptions {
  /** Reused across restarts; a temporary one (removed by stop()) when omitted. */
  dataDir?: string;
  /** TFGATE_* settings (TFGATE_DRIFT_INTERVAL, TFGATE_RATE_LIMIT, TFGATE_DATABASE_URL, ...). */
  env?: Record<string, string>;
  /** The bootstrap admin key; random when omitted. */
  apiKey?: string;
  /** Run `tfgate serve` as a child process (needed for kill -9, signals, several instances). */
  process?: boolean;
  /** In process: the environment terraform reads state backends with (default: this process's). */
  terraformEnv?: NodeJS.ProcessEnv;
}

export interface TestService {
  baseUrl: string;
  /** The bootstrap key: account `default`, plan enterprise, every scope. */
  apiKey: string;
  dataDir: string;
  /** Graceful stop (SIGTERM for a child process); removes a temporary data dir. */
  stop(): Promise<void>;
  /** Child processes only: SIGKILL, for crash tests. */
  kill(): Promise<void>;
  child?: ChildProcess;
  /** Child processes only: every JSON log line so far. */
  logs: Array<Record<string, unknown>>;
  /** In process only: the service's own store (to count rows). */
  store?: Store;
}

export async function startService(options: StartServiceOptions = {}): Promise<TestService> {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tfgate-svc-'));
  const apiKey = options.apiKey ?? `tfg_test_${randomBytes(24).toString('base64url')}`;
  const env: Record<string, string> = {
    TFGATE_HOST: '127.0.0.1',
    TFGATE_PORT: '0',
    TFGATE_DATA_DIR: dataDir,
    TFGATE_BOOTSTRAP_API_KEY: apiKey,
    TFGATE_DRIFT_INTERVAL: '0',
    TFGATE_RATE_LIMIT: '0',
    TFGATE_SHUTDOWN_TIMEOUT: '10s',
    ...options.env,
  };
  const cleanup = () => {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
  };
  if (!options.process) {
    const config = resolveServeConfig({}, { TFGATE_LOG_LEVEL: 'silent', ...env });
    const service = await startInProcess(config, undefined, undefined, options.terraformEnv);
    return {
      baseUrl: service.url,
      apiKey,
      dataDir,
      logs: [],
      store: service.store,
      async stop() {
        await service.close();
        cleanup();
      },
      kill: () => Promise.reject(new Error('kill() needs { process: true }')),
    };
  }
  return startChild(env, apiKey, dataDir, cleanup);
}

async function startChild(
  env: Record<string, string>,
  apiKey: string,
  dataDir: string,
  cleanup: () => void,
): Promise<TestService> {
  const child = spawn(
    process.execPath,
    ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts'), 'serve'],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const baseUrl = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`tfgate serve did not start in 60 s\n${stderr}`)), 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      if (entry.msg === 'listening') {
        clearTimeout(timer);
        done(String(entry.url));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`tfgate serve exited with ${code} before listening\n${stderr}`));
    });
  });
  let finished = false;
  const waitExit = async () => {
    await exited;
    if (!finished) {
      finished = true;
      cleanup();
    }
  };
  return {
    baseUrl,
    apiKey,
    dataDir,
    child,
    logs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await waitExit();
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A call to the service; `key: null` sends no X-Api-Key. JSON bodies are serialised; strings sent as is. */
export async function api<T = Record<string, unknown>>(
  service: Pick<TestService, 'baseUrl' | 'apiKey'>,
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? service.apiKey : options.key;
  if (key !== null) headers['X-Api-Key'] = key;
  let body: string | Buffer | undefined;
  if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(`${service.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('application/json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export const CONFORMANCE = '/v1/analysis/conformance';

/** PUT a design (object or YAML text), approve it, and optionally push observed state (JSON text). */
export async function createApprovedPackage(
  service: Pick<TestService, 'baseUrl' | 'apiKey'>,
  design: string | { package_id: string },
  options: { observedState?: string; key?: string; packageId?: string } = {},
): Promise<string> {
  const isText = typeof design === 'string';
  const packageId =
    options.packageId ?? (isText ? /package_id:\s*["']?([a-z0-9._-]+)/.exec(design)?.[1] : design.package_id);
  if (!packageId)
    throw new Error('createApprovedPackage: cannot tell the package id; pass options.packageId');
  const key = options.key ?? service.apiKey;
  const put = await api(service, 'PUT', `${CONFORMANCE}/packages/${packageId}`, {
    key,
    body: isText ? design : JSON.stringify(design),
    headers: { 'Content-Type': isText ? 'application/yaml' : 'application/json' },
  });
  if (put.status >= 300) throw new Error(`PUT package ${packageId}: ${put.status} ${put.text}`);
  const approve = await api(service, 'POST', `${CONFORMANCE}/packages/${packageId}/approve`, { key });
  if (approve.status !== 200) throw new Error(`approve ${packageId}: ${approve.status} ${approve.text}`);
  if (options.observedState !== undefined) {
    const state = await api(service, 'PUT', `${CONFORMANCE}/packages/${packageId}/observed-state`, {
      key,
      body: options.observedState,
    });
    if (state.status !== 200) throw new Error(`observed state ${packageId}: ${state.status} ${state.text}`);
  }
  return packageId;
}

/** Create an account and a key in it through the admin API; returns the new key. */
export async function createAccountKey(
  service: Pick<TestService, 'baseUrl' | 'apiKey'>,
  account: string,
  plan: 'starter' | 'team' | 'large' | 'enterprise',
  scopes: string[] = ['compliance:read', 'compliance:write'],
  name = `${account}-key`,
): Promise<{ id: string; key: string }> {
  const created = await api(service, 'POST', '/v1/admin/accounts', { body: { name: account, plan } });
  if (created.status !== 201 && created.status !== 409)
    throw new Error(`create account: ${created.status} ${created.text}`);
  const key = await api<{ id: string; key: string }>(
    service,
    'POST',
    `/v1/admin/accounts/${account}/api-keys`,
    {
      body: { name, scopes },
    },
  );
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${key.text}`);
  return key.body;
}

/** `tfgate` run from source as a child process against the service (its URL and key in the environment). */
export function tfgateAgainst(svc: Pick<TestService, 'baseUrl' | 'apiKey'>) {
  return (args: string[], env: Record<string, string> = {}) =>
    execa(
      process.execPath,
      ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts'), ...args],
      {
        cwd: ROOT,
        env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey, NO_COLOR: '1', ...env },
        reject: false,
      },
    );
}

/**
 * The CLI tests' service: started as startService does, with one approved package (and its observed state
 * when given), and `tfgate` from source against it. The service is stopped if the package cannot be made.
 */
export async function startServiceWithPackage(
  design: string | { package_id: string },
  options: StartServiceOptions & { observedState?: string } = {},
): Promise<{ svc: TestService; tfgate: ReturnType<typeof tfgateAgainst> }> {
  const { observedState, ...serviceOptions } = options;
  const svc = await startService(serviceOptions);
  try {
    await createApprovedPackage(svc, design, observedState === undefined ? {} : { observedState });
  } catch (error) {
    await svc.stop();
    throw error;
  }
  return { svc, tfgate: tfgateAgainst(svc) };
}
