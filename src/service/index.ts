// `tfgate serve` as a library: open the store, bootstrap, load the platform key, listen, schedule.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { ServeConfig } from './config.js';
import { bootstrap } from './core/admin.js';
import { createContext, type ServiceContext } from './core/context.js';
import { createLogger, type Logger } from './core/log.js';
import { loadPlatformKey } from './core/signing-key.js';
import { createServiceServer } from './http/server.js';
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
  const store = await openStore(
    config.databaseUrl
      ? { databaseUrl: config.databaseUrl }
      : { dataDir: config.dataDir, sync: config.embeddedSync },
  );
  try {
    if (await bootstrap(store, config.bootstrapApiKey)) {
      log.info(
        'bootstrap: created account "default" (plan enterprise) with the TFGATE_BOOTSTRAP_API_KEY key and every scope',
      );
    } else if (!config.bootstrapApiKey && !(await store.apiKeys.any())) {
      notices.noApiKey?.();
    }
    const platformKey = await loadPlatformKey({
      store,
      dataDir: config.dataDir,
      signingKeyFile: config.signingKeyFile,
    });
    const context = createContext({ store, config, platformKey, log, environment });
    const http = createServiceServer(context, packageVersion());
    await new Promise<void>((resolve, reject) => {
      http.server.once('error', reject);
      http.server.listen(config.port, config.host, () => {
        http.server.off('error', reject);
        resolve();
      });
    });
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
          await store.close();
          log.info('stopped', { instance: context.instanceId });
        })();
        return closing;
      },
    };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}
