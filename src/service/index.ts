// `tfgate serve` as a library: open the store, bootstrap, load the platform key, listen, schedule.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors/index.js';
import type { ServeConfig } from './config.js';
import { bootstrap } from './core/admin.js';
import { hashApiKey } from './core/api-keys.js';
import { createContext, type ServiceContext } from './core/context.js';
import { createLogger, type Logger } from './core/log.js';
import { loadPlatformKey } from './core/signing-key.js';
import { createHttpServer, createServiceServer } from './http/server.js';
import { startRunTaskWorker } from './run-task-worker.js';
import { startScheduler } from './scheduler.js';
import { openStore, type Store } from './store/index.js';
import { startSessionSweeper } from './ui-session-sweeper.js';

export { resolveServeConfig, SERVE_SETTINGS, type ServeConfig, serveConfigSchema } from './config.js';
export { BASE_PATH, ROUTES } from './http/routes.js';
export * as schemas from './http/schemas.js';

export interface RunningService {
  url: string;
  port: number;
  store: Store;
  context: ServiceContext;
  /** Graceful: stop accepting, finish in-flight requests, stop the scheduler, close the store. */
  close(): Promise<void>;
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** What the operator must know at start-up, as plain lines (the CLI prints them on stderr). */
export interface StartNotices {
  /** The port is bound and the embedded store's data dir usable, with no store yet: one is being created. */
  creatingStore?: () => void;
  /** The store holds no API key and no TFGATE_BOOTSTRAP_API_KEY was given: every call will be refused. */
  noApiKey?: () => void;
}

export async function startService(
  config: ServeConfig,
  log: Logger = createLogger(config.logLevel),
  notices: StartNotices = {},
  /** The environment terraform reads state backends with (their credentials): the service's own. */
  environment: NodeJS.ProcessEnv = process.env,
): Promise<RunningService> {
  // The port first: one in use, or a --host that does not resolve, is said before any store is created or
  // opened, and before any notice about the store. Requests that arrive meanwhile wait for the service.
  const server = createHttpServer(config);
  const held: Array<[IncomingMessage, ServerResponse]> = [];
  const hold = (req: IncomingMessage, res: ServerResponse) => {
    held.push([req, res]);
  };
  server.on('request', hold);
  await listen(server, config.port, config.host);
  let store: Store | undefined;
  try {
    store = await openStore(
      config.databaseUrl
        ? { databaseUrl: config.databaseUrl, connectTimeoutMs: config.databaseConnectTimeout }
        : { dataDir: config.dataDir, sync: config.embeddedSync, creating: notices.creatingStore },
    );
    if (await bootstrap(store, config.bootstrapApiKey)) {
      log.info(
        'bootstrap: created account "default" (plan enterprise) with the TFGATE_BOOTSTRAP_API_KEY key and every scope',
      );
    } else if (!config.bootstrapApiKey && !(await store.apiKeys.any())) {
      notices.noApiKey?.();
    } else if (config.bootstrapApiKey && !(await store.apiKeys.lookup(hashApiKey(config.bootstrapApiKey)))) {
      // Another key than the one the store was bootstrapped with: said, or a newcomer calls with it in vain.
      log.warn(
        'bootstrap: TFGATE_BOOTSTRAP_API_KEY was not used: this store already has API keys, and the bootstrap key only creates the first one; call with a key the store holds, or create one with tfgate keys create',
      );
    }
    const platformKey = await loadPlatformKey({
      store,
      dataDir: config.dataDir,
      signingKeyFile: config.signingKeyFile,
    });
    const context = createContext({ store, config, platformKey, log, environment });
    const http = createServiceServer(context, packageVersion(), server);
    server.off('request', hold);
    for (const [req, res] of held.splice(0)) http.handle(req, res);
    const scheduler = startScheduler(context);
    const runTasks = startRunTaskWorker(context);
    const sessions = await startSessionSweeper(store, log);
    const { port } = http.server.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    log.info('listening', {
      url,
      dashboard: `${url}/ui/`,
      store: store.kind,
      instance: context.instanceId,
      key_id: platformKey.keyId,
      drift_interval_ms: config.driftInterval,
    });
    let closing: Promise<void> | undefined;
    const opened = store;
    return {
      url,
      port,
      store,
      context,
      close() {
        closing ??= (async () => {
          await http.shutdown(config.shutdownTimeout);
          await scheduler.stop();
          await runTasks.stop();
          await sessions.stop();
          await opened.close();
          log.info('stopped', { instance: context.instanceId });
        })();
        return closing;
      },
    };
  } catch (error) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store?.close().catch(() => undefined);
    throw error;
  }
}

/** Bind the port; what stops it is said in plain words (the port in use, a host that is not this machine's). */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(listenError(error, host, port));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

const HOST_HINT =
  'give an address or name of this machine with --host (env TFGATE_HOST): 127.0.0.1 for this machine only, 0.0.0.0 or :: for every interface';

/** Why the port could not be bound: the operator's to fix, never a bug in tfgate. Anything else is kept. */
export function listenError(error: Error, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const cannot = `tfgate serve cannot listen on ${where}`;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError('port_in_use', `${cannot}: another process already listens on port ${port}`, {
        hint: 'stop that process (another tfgate serve?), or pick a free port with --port (env TFGATE_PORT); --port 0 picks one',
        cause: error,
      });
    case 'EACCES':
      return new UsageError(
        'port_not_permitted',
        `${cannot}: permission denied${port > 0 && port < 1024 ? ' (a port below 1024 needs privileges)' : ''}`,
        {
          hint: 'pick a port of 1024 or above with --port (env TFGATE_PORT), or grant the process CAP_NET_BIND_SERVICE',
          cause: error,
        },
      );
    case 'EADDRNOTAVAIL':
      return new UsageError('host_not_local', `${cannot}: ${host} is not an address of this machine`, {
        hint: HOST_HINT,
        cause: error,
      });
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_NODATA':
      return new UsageError('host_not_found', `${cannot}: the name ${host} does not resolve to an address`, {
        hint: HOST_HINT,
        cause: error,
      });
    case 'EAI_AGAIN':
      return new UsageError(
        'host_lookup_failed',
        `${cannot}: the name ${host} could not be looked up (EAI_AGAIN: the name server did not answer)`,
        { hint: `try again, or give an IP address with --host (env TFGATE_HOST)`, cause: error },
      );
    case 'EAFNOSUPPORT':
      return new UsageError(
        'host_not_supported',
        `${cannot}: this machine does not support that address family (IPv6 off?)`,
        {
          hint: HOST_HINT,
          cause: error,
        },
      );
    default:
      return error;
  }
}
