// Read stage: where the plan's addresses are declared (file and line), for the reports.
export { type DeclaredAddress, parseResourceAddress } from './address.js';
export { findHclBlocks, type HclBlockStart, HclLexError } from './hcl-blocks.js';
export { findJsonBlocks, type JsonBlockStart } from './json-blocks.js';
export {
  DEFAULT_LOCATE_LIMITS,
  findRepositoryRoot,
  type LocateLimits,
  type LocateOptions,
  locateAddresses,
} from './locator.js';
export { readModulesManifest } from './modules-manifest.js';
export { locateForReport, type ReportLocationOptions, type ReportLocations } from './report-locations.js';
