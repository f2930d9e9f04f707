// The service client: configuration, transport (timeouts, retries, proxies, CAs), and the conformance calls.
export {
  type BundleDownload,
  CONFORMANCE_PATH,
  type GateOutcome,
  type ManagementCall,
  packagePath,
  ServiceClient,
} from './client.js';
export {
  CLIENT_FLAG_NAMES,
  type ClientConfig,
  type ClientFlags,
  clientFlagsSchema,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  resolveClientConfig,
} from './config.js';
export { errorForStatus, type Operation } from './errors.js';
export {
  createDispatcher,
  readJsonBody,
  retryAfterMs,
  ServiceTransport,
  type TransportDeps,
} from './http.js';
export { printable, redact } from './redact.js';
export { openRemoteEvaluator, RemoteEvaluator } from './remote-evaluator.js';
