// The streaming JSON scanner: validates a whole document, keeps only what a schema asks for (scanner.ts).
export { JsonScanError } from './errors.js';
export { JsonScanner, type ScanOptions } from './scanner.js';
export {
  type ArrayNode,
  arrayNode,
  DEFAULT_LIMITS,
  type FieldName,
  type ObjectNode,
  type ObjectNodeOptions,
  objectNode,
  type Problem,
  type ScannerLimits,
  type SchemaNode,
  SKIP,
  type SkipNode,
  type ValueNode,
  valueNode,
} from './schema.js';
export type { ChangeLane } from './skip-path.js';
