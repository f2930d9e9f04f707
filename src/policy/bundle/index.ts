// Signed OPA bundles: build, verify, and evaluate a plan against a verified bundle.
export {
  assembleBundle,
  type BuildBundleOptions,
  type BundleContents,
  type BundleSigning,
  buildBundle,
  defaultPolicyDir,
  fileDigest,
  loadPolicySources,
  type PolicySources,
} from './build.js';
export { canonicalJsonDigest } from './canonical-json.js';
export { BundleEvaluator, type OpenBundleOptions } from './evaluator.js';
export * from './format.js';
export { keyIdFor, loadSigningKey, loadVerificationKey, publicKeyPem } from './jws.js';
export { type PublicKeySource, type ReadBundleOptions, readVerifiedBundle } from './read.js';
export { DEFAULT_TAR_LIMITS, type TarLimits } from './tar.js';
export {
  type BundleLimits,
  DEFAULT_BUNDLE_LIMITS,
  UNSIGNED_BUNDLE_WARNING,
  type VerifiedBundle,
  type VerifyBundleOptions,
  verifyBundle,
} from './verify.js';
