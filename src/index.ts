// The library API: the same stages the CLI uses.

export { BUILTIN_CATALOG, BUILTIN_KINDS, effectiveCatalog } from './catalog/index.js';
export {
  type ClientConfig,
  type ClientFlags,
  type GateOutcome,
  openRemoteEvaluator,
  RemoteEvaluator,
  resolveClientConfig,
  ServiceClient,
} from './client/index.js';
export { type Design, designSchema, loadDesign, parseDesign, validateDesign } from './design/index.js';
export * from './errors/index.js';
export {
  DEFAULT_LOCATE_LIMITS,
  type LocateLimits,
  type LocateOptions,
  locateAddresses,
  locateForReport,
  type ReportLocations,
} from './locate/index.js';
// The evaluator port (PlanSource comes with ./plan): what a library caller implements to decide itself.
export type { PlanEvaluator } from './model/evaluator.js';
export * from './model/index.js';
export * from './plan/index.js';
export {
  assembleBundle,
  type BuildBundleOptions,
  BundleEvaluator,
  type BundleLimits,
  buildBundle,
  DEFAULT_BUNDLE_LIMITS,
  keyIdFor,
  loadPolicySources,
  publicKeyPem,
  UNSIGNED_BUNDLE_WARNING,
  type VerifiedBundle,
  type VerifyBundleOptions,
  verifyBundle,
} from './policy/bundle/index.js';
export * from './policy/index.js';
export {
  type AnyReportSubject,
  colorEnabled,
  emitReports,
  type NoDecisionReport,
  REPORT_FORMATS,
  type ReportFormat,
  type ReportSubject,
  type ReportTarget,
  type RootReport,
  type RootsReport,
  RULES,
  renderGithubAnnotations,
  renderReport,
} from './report/index.js';
