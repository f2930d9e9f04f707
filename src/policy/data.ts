import type { Design } from '../design/index.js';

/**
 * What the policy reads as data.tfgate: the design, the effective catalog (built-in plus the design's
 * additions), and each capability's depends_on compiled to anchored regular expressions.
 * The same object goes into a bundle's data.json and into the in-process engine.
 */
export interface PolicyData {
  package_id: string;
  sanctioned_kinds: string[];
  capabilities: Array<{ name: string; depends_on: string[]; patterns: string[] }>;
  catalog: Record<string, string>;
}

export function compilePolicyData(_design: Design): PolicyData {
  throw new Error('compilePolicyData: not implemented yet');
}
