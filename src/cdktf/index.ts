// tfgate/cdktf: the approved design enforced at CDKTF synth time (cdktf 0.21 and CDK Terrain), duck-typed:
// neither toolkit is imported, so an app brings its own.
export type { AcknowledgementInput } from './acknowledgements.js';
export {
  type ApplyConformanceOptions,
  applyConformance,
  ConformanceAspect,
  type ConformanceOptions,
  type ConformanceRecord,
  type FindingOutcome,
  type FromBundleOptions,
  type FromDesignOptions,
  type FromServiceOptions,
  type StackConformance,
  type SynthFinding,
} from './aspect.js';
export {
  type CdktfStackTarget,
  constructPathOf,
  constructPathsForPlan,
  DEFAULT_CDKTF_OUTDIR,
  readConstructPaths,
  resolveCdktfStack,
} from './construct-paths.js';
export type { AspectsApi, ConstructLike, TerraformStackLike } from './constructs.js';
export { type SynthesizedResource, synthesizedStackFile } from './synthesized-stack.js';
