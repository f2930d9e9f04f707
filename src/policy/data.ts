import { effectiveCatalog } from '../catalog/index.js';
import type { Design } from '../design/index.js';
import type { Acknowledgement, PlanAcknowledgement } from '../model/index.js';

/**
 * What the policy reads as data.tfgate: the design, the effective catalog (built-in plus the design's
 * additions), and each capability's depends_on compiled to anchored regular expressions.
 * The same object goes into a bundle's data.json (under the `tfgate` key) and into the in-process engine.
 */
export interface PolicyData {
  package_id: string;
  sanctioned_kinds: string[];
  /** One pattern per depends_on entry, in the same order. */
  capabilities: Array<{ name: string; depends_on: string[]; patterns: string[] }>;
  catalog: Record<string, string>;
  /** Every pattern as one alternation, so a destruction meets one regex before the per-capability ones; "" when none. */
  dependency_pattern: string;
  /** Plan findings waived by the platform team (the service's plan acknowledgements), one per finding. */
  plan_acknowledgements?: PolicyPlanAcknowledgement[];
}

/** A plan acknowledgement as the policy reads it: what it matches, when it ends, what a finding carries. */
export interface PolicyPlanAcknowledgement {
  rule: string;
  address: string;
  /** Canonical UTC with milliseconds, so the policy compares it with input.now as text. */
  expires_at?: string;
  acknowledgement: Acknowledgement;
}

/** The policy data with the package's plan acknowledgements. */
export function withPlanAcknowledgements(
  data: PolicyData,
  acknowledgements: readonly PlanAcknowledgement[],
): PolicyData {
  if (acknowledgements.length === 0) return data;
  return {
    ...data,
    plan_acknowledgements: acknowledgements.map(({ finding_id: _, rule, address, ...acknowledgement }) => ({
      rule,
      address,
      ...(acknowledgement.expires_at === undefined ? {} : { expires_at: acknowledgement.expires_at }),
      acknowledgement,
    })),
  };
}

/** The path under which the policy reads PolicyData: `data.tfgate`. */
export const POLICY_DATA_ROOT = 'tfgate';

export function compilePolicyData(design: Design): PolicyData {
  const capabilities = design.capabilities.map((capability) => ({
    name: capability.name,
    depends_on: [...capability.depends_on],
    patterns: capability.depends_on.map(compileAddressPattern),
  }));
  const allPatterns = [...new Set(capabilities.flatMap((capability) => capability.patterns))];
  return {
    package_id: design.package_id,
    sanctioned_kinds: [...new Set(design.sanctioned_kinds)].sort(),
    capabilities,
    catalog: effectiveCatalog(design),
    dependency_pattern: allPatterns.join('|'),
  };
}

// A Terraform instance key: [0] or ["a \"quoted\" key"].
const INSTANCE_KEY = String.raw`(?:\[(?:[0-9]+|"(?:[^"\\]|\\.)*")\])`;
const REGEX_META = /[\\^$.|?*+()[\]{}]/;
const NAME_CHAR = /[A-Za-z0-9_-]/;

/**
 * Compile one depends_on entry to an anchored regular expression, valid in RE2 (OPA) and in JavaScript.
 * `*` matches any run of characters; everything else is literal. Where the entry names a module call or
 * a resource without an instance key, any instance key may follow, so `aws_db_instance.ledger` covers
 * `aws_db_instance.ledger[0]` and `aws_db_instance.ledger["a"]`, and `module.queue.*` covers
 * `module.queue[1].aws_sqs_queue.q`.
 */
export function compileAddressPattern(entry: string): string {
  let out = '^';
  let i = 0;
  let segmentStart = true;
  while (i < entry.length) {
    const char = entry[i] as string;
    if (segmentStart && entry.startsWith('module.', i)) {
      // module.NAME: allow an instance key after NAME when the entry gives none.
      let end = i + 'module.'.length;
      while (end < entry.length && NAME_CHAR.test(entry[end] as string)) end++;
      out += escapeLiteral(entry.slice(i, end));
      if (end > i + 'module.'.length && entry[end] === '.') out += `${INSTANCE_KEY}?`;
      i = end;
      segmentStart = false;
      continue;
    }
    if (char === '[' && entry[i + 1] === '"') {
      // Inside a quoted key a dot does not start a segment; `*` still matches any run.
      let end = i + 2;
      while (end < entry.length && entry[end] !== '"') end += entry[end] === '\\' ? 2 : 1;
      out += globToRegex(entry.slice(i, end + 1));
      i = end + 1;
      segmentStart = false;
      continue;
    }
    out += char === '*' ? '.*' : escapeLiteral(char);
    segmentStart = char === '.';
    i++;
  }
  if (!entry.endsWith(']') && !entry.endsWith('*')) out += `${INSTANCE_KEY}?`;
  return `${out}$`;
}

function globToRegex(text: string): string {
  return text.split('*').map(escapeLiteral).join('.*');
}

function escapeLiteral(text: string): string {
  let out = '';
  for (const char of text) out += REGEX_META.test(char) ? `\\${char}` : char;
  return out;
}
