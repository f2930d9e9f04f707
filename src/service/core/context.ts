// What every core function works with: the store, the policy engine, the platform key and the settings.
import { hostname } from 'node:os';
import type { Design } from '../../design/index.js';
import { compilePolicyData, type PolicyData, PolicyEngine } from '../../policy/index.js';
import type { ServeConfig } from '../config.js';
import type { Store } from '../store/index.js';
import type { Logger } from './log.js';
import type { PlatformKey } from './signing-key.js';

export interface ServiceContext {
  store: Store;
  config: ServeConfig;
  platformKey: PlatformKey;
  instanceId: string;
  log: Logger;
  /** The environment terraform runs with when it reads a state backend (credentials live there). */
  environment: NodeJS.ProcessEnv;
  engine(): Promise<PolicyEngine>;
  /** The compiled policy data of a design revision, computed once. */
  policyData(revision: string, design: Design): PolicyData;
}

export function createContext(options: {
  store: Store;
  config: ServeConfig;
  platformKey: PlatformKey;
  log: Logger;
  environment?: NodeJS.ProcessEnv;
}): ServiceContext {
  let engine: Promise<PolicyEngine> | undefined;
  const compiled = new Map<string, PolicyData>();
  return {
    ...options,
    environment: options.environment ?? process.env,
    instanceId: options.config.instanceId ?? `${hostname()}-${process.pid}`,
    engine() {
      engine ??= PolicyEngine.load().catch((error: unknown) => {
        engine = undefined;
        throw error;
      });
      return engine;
    },
    policyData(revision, design) {
      let data = compiled.get(revision);
      if (!data) {
        data = compilePolicyData(design);
        // Bounded: designs are small, but a long-running service sees many revisions.
        if (compiled.size >= 1000) compiled.delete(compiled.keys().next().value!);
        compiled.set(revision, data);
      }
      return data;
    },
  };
}
