// `tfgate serve`: run the reference conformance service until SIGTERM or SIGINT, then shut down gracefully.
import { type RunningService, type ServeConfig, startService } from '../service/index.js';

export interface ServeOptions {
  /** The service's configuration, parsed by the CLI's normaliser (src/cli/normalise/serve.ts). */
  config: ServeConfig;
  /** Resolves when the service should stop; defaults to the first SIGTERM or SIGINT. */
  until?: (service: RunningService) => Promise<unknown>;
}

export interface ServeResult {
  url: string;
  signal?: string;
}

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
  const service = await startService(options.config);
  const stopped = await (options.until ? options.until(service) : firstSignal());
  await service.close();
  return { url: service.url, ...(typeof stopped === 'string' ? { signal: stopped } : {}) };
}
