// `tfgate serve`: run the reference conformance service until SIGTERM or SIGINT, then shut down gracefully.
import { type RunningService, type ServeConfig, startService } from '../service/index.js';

export interface ServeOptions {
  /** The service's configuration, parsed by the CLI's normaliser (src/cli/normalise/serve.ts). */
  config: ServeConfig;
  /** Resolves when the service should stop; defaults to the first SIGTERM or SIGINT. */
  until?: (service: RunningService) => Promise<unknown>;
  /** Where start-up notices for the operator go (default: process.stderr); request logs stay on stdout. */
  stderr?: { write(chunk: string): unknown };
}

export interface ServeResult {
  url: string;
  signal?: string;
}

/** How to create the first key, said when a store has none: without one every call is refused (401). */
export const NO_API_KEY_WARNING = [
  'tfgate serve: WARNING: the store has no API key yet, so every call will be refused (401 unauthorized).',
  '  To create the first key, stop the service and start it once with TFGATE_BOOTSTRAP_API_KEY set to a',
  '  secret of at least 16 characters, e.g.',
  '    export TFGATE_BOOTSTRAP_API_KEY="$(openssl rand -hex 24)"',
  '  It becomes an admin key (every scope) of account "default"; keep it in your secret store and create',
  '  narrower keys with `tfgate keys create`.',
].join('\n');

function firstSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

export async function serve(options: ServeOptions): Promise<ServeResult> {
  const { config } = options;
  const stderr = options.stderr ?? process.stderr;
  let warned = false;
  const warnNoKey = () => {
    if (warned) return;
    warned = true;
    stderr.write(`${NO_API_KEY_WARNING}\n`);
  };
  // A new embedded store: say so (an unexpected empty store is a wrong --data-dir), and say at once when it
  // will start with no key. Only once the port is bound and the data dir usable: a start that fails before
  // says only why.
  const creatingStore = () => {
    stderr.write(`tfgate serve: preparing a new store in ${config.dataDir} (first start)...\n`);
    if (!config.bootstrapApiKey) warnNoKey();
  };
  const service = await startService(config, undefined, { creatingStore, noApiKey: warnNoKey });
  const stopped = await (options.until ? options.until(service) : firstSignal());
  await service.close();
  return { url: service.url, ...(typeof stopped === 'string' ? { signal: stopped } : {}) };
}
