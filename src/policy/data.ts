import { effectiveCatalog } from '../catalog/index.js';
import { type Design, validateDesign } from '../design/index.js';
import type { Acknowledgement, PlanAcknowledgement } from '../model/index.js';

/**
 * What the policy reads as data.tfgate: the design, the effective catalog (built-in plus the design's
 * additions), and each capability's depends_on compiled to anchored regular expressions (and matchers).
 * The same object goes into a bundle's data.json (under the `tfgate` key) and into the in-process engine.
 */
export interface PolicyData {
  package_id: string;
  sanctioned_kinds: string[];
  /** One pattern per depends_on entry, in the same order, and how the policy matches it (absent in older bundles' data). */
  capabilities: Array<{
    name: string;
    depends_on: string[];
    patterns: string[];
    matchers?: AddressMatcher[];
  }>;
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

/**
 * The policy data of a design. The design is validated first, as a design file is: a library caller's object
 * may be anything, and a catalog entry mapped to null or a misspelt kind would silently sanction nothing.
 * `source` names it in the error.
 */
export function compilePolicyData(input: Design, source = 'the design'): PolicyData {
  const design = validateDesign(input, source);
  const capabilities = design.capabilities.map((capability) => ({
    name: capability.name,
    depends_on: [...capability.depends_on],
    patterns: capability.depends_on.map(compileAddressPattern),
    matchers: capability.depends_on.map(compileAddressMatcher),
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
  for (const token of addressTokens(entry)) {
    out += token === STAR ? '.*' : token === KEY ? `${INSTANCE_KEY}?` : escapeLiteral(token.text);
  }
  return `${out}$`;
}

/**
 * How the policy matches an address against one entry's pattern without compiling it where it can (RE2
 * compiles each pattern again in every evaluation, ~13 ms on a cold process): the same answer as
 * regex.match(pattern, address), from string builtins.
 *   prefix      every match starts with it (the literal text before the first `*` or instance key)
 *   parts       when present: the pattern is parts joined by `.*` (1 to 3 parts), except that where
 *               key_prefix is present, an address starting with key_prefix is judged by the pattern itself
 *               (an instance key follows the literal; the literal without a key continues otherwise)
 * Without parts, an address starting with prefix meets the regular expression.
 */
export interface AddressMatcher {
  prefix: string;
  parts?: string[];
  key_prefix?: string;
}

const MAX_GLOB_PARTS = 3;

export function compileAddressMatcher(entry: string): AddressMatcher {
  const tokens = addressTokens(entry);
  const head = tokens[0];
  const prefix = typeof head === 'object' ? head.text : '';
  const keys = tokens.filter((t) => t === KEY).length;
  if (keys === 0) {
    const parts = globParts(tokens);
    return parts === undefined ? { prefix } : { prefix, parts };
  }
  // One instance key right after the leading literal: `res.name` + key, or `module.name` + key + `.rest`.
  // The rest must not start with `[`, so an address has a key there or continues with the rest, not both.
  const tail = tokens.slice(2);
  if (keys === 1 && prefix !== '' && tokens[1] === KEY && !tail.includes(KEY)) {
    const first = tail[0];
    if (first === undefined || (typeof first === 'object' && !first.text.startsWith('['))) {
      const parts = globParts(tail);
      if (parts !== undefined) {
        return { prefix, parts: [prefix + parts[0], ...parts.slice(1)], key_prefix: `${prefix}[` };
      }
    }
  }
  return { prefix };
}

/** The literal runs between `*`s, or undefined past MAX_GLOB_PARTS (the policy then uses the pattern). */
function globParts(tokens: readonly Token[]): string[] | undefined {
  const parts: string[] = [];
  let run = '';
  for (const token of tokens) {
    if (token === STAR) {
      parts.push(run);
      run = '';
    } else if (token !== KEY) run += token.text;
  }
  parts.push(run);
  return parts.length <= MAX_GLOB_PARTS ? parts : undefined;
}

const STAR = 'star';
const KEY = 'key';
/** A literal run of text, `*`, or an optional instance key. */
type Token = { text: string } | typeof STAR | typeof KEY;

function addressTokens(entry: string): Token[] {
  const tokens: Token[] = [];
  const literal = (text: string) => {
    if (text === '') return;
    const last = tokens.at(-1);
    if (typeof last === 'object') last.text += text;
    else tokens.push({ text });
  };
  let i = 0;
  let segmentStart = true;
  while (i < entry.length) {
    const char = entry[i] as string;
    if (segmentStart && entry.startsWith('module.', i)) {
      // module.NAME: allow an instance key after NAME when the entry gives none.
      let end = i + 'module.'.length;
      while (end < entry.length && NAME_CHAR.test(entry[end] as string)) end++;
      literal(entry.slice(i, end));
      if (end > i + 'module.'.length && entry[end] === '.') tokens.push(KEY);
      i = end;
      segmentStart = false;
      continue;
    }
    if (char === '[' && entry[i + 1] === '"') {
      // Inside a quoted key a dot does not start a segment; `*` still matches any run.
      let end = i + 2;
      while (end < entry.length && entry[end] !== '"') end += entry[end] === '\\' ? 2 : 1;
      entry
        .slice(i, end + 1)
        .split('*')
        .forEach((text, n) => {
          if (n > 0) tokens.push(STAR);
          literal(text);
        });
      i = end + 1;
      segmentStart = false;
      continue;
    }
    if (char === '*') tokens.push(STAR);
    else literal(char);
    segmentStart = char === '.';
    i++;
  }
  if (!entry.endsWith(']') && !entry.endsWith('*')) tokens.push(KEY);
  return tokens;
}

function escapeLiteral(text: string): string {
  let out = '';
  for (const char of text) out += REGEX_META.test(char) ? `\\${char}` : char;
  return out;
}
