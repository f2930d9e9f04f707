// Verify a bundle before any of it is used: the JWS, its scope, and every file's digest, as opa does;
// then the layout tfgate relies on, so that tfgate and opa read exactly the same files. Bounded whatever
// the input: sizes are capped before bytes are read, the signature is checked before any file is hashed,
// raw digests before structured ones, and nothing is parsed before its digest matched.

import { createHash } from 'node:crypto';
import { closest } from '../../errors/closest.js';
import { BundleVerificationError, UsageError } from '../../errors/index.js';
import { nounFor } from '../../errors/plural.js';
import { parseUntrustedJson } from '../../json/untrusted.js';
import * as z from '../../schemas/zod.js';
import type { PolicyData } from '../data.js';
import { CanonicalJsonError, type CanonicalRendering, renderCanonicalJson } from './canonical-json.js';
import { readCanonicalJson } from './canonical-read.js';
import {
  BUNDLE_ROOT,
  type BundleManifest,
  DATA_FILE,
  HASH_ALGORITHM,
  isStructuredFile,
  MANIFEST_FILE,
  manifestSchema,
  REGO_DIR,
  SIGNATURES_FILE,
  signaturePayloadSchema,
  signaturesFileSchema,
  WASM_FILE,
} from './format.js';
import { loadVerificationKey, verifyCompactJws } from './jws.js';
import { DEFAULT_TAR_LIMITS, readTarGz, type TarEntry, type TarLimits } from './tar.js';

export interface VerifyBundleOptions {
  /** Required unless the bundle is unsigned and allowUnsigned is set. */
  publicKeyPem?: string | Buffer;
  /** Refuse a bundle built for another package. */
  expectedPackageId?: string;
  /**
   * Refuse a bundle not built for this service account (.manifest metadata.account, covered by the
   * signature). Without it a bundle of another account's package of the same id verifies: one platform
   * key signs every account's bundles.
   */
  expectedAccount?: string;
  /** The scope the signature must carry; defaults to expectedPackageId, else the signed manifest's package id. */
  scope?: string;
  /** Accept a bundle without .signatures.json. INSECURE: callers must warn every time it is used. */
  allowUnsigned?: boolean;
  limits?: Partial<BundleLimits>;
}

export interface BundleLimits extends TarLimits {
  /** Largest structured file (.manifest, data.json): these are rendered canonically to be hashed. */
  maxJsonFileBytes: number;
  /** Largest .signatures.json (one JWS listing a handful of files). */
  maxSignaturesBytes: number;
}

export const DEFAULT_BUNDLE_LIMITS: BundleLimits = {
  ...DEFAULT_TAR_LIMITS,
  maxJsonFileBytes: 8 * 1024 * 1024,
  maxSignaturesBytes: 1024 * 1024,
};

export interface VerifiedBundle {
  manifest: BundleManifest;
  revision: string;
  packageId: string;
  /** The service account named in the manifest; undefined for a bundle built without one. */
  account: string | undefined;
  /** What the policy reads at data.tfgate. */
  data: PolicyData;
  wasm: Buffer;
  /** Every file of the bundle (the signature file excluded), with its verified digest. */
  files: Array<{ name: string; size: number; sha256: string }>;
  signed: boolean;
  keyId: string | undefined;
  scope: string | undefined;
}

export const UNSIGNED_BUNDLE_WARNING =
  'WARNING: INSECURE: this bundle is UNSIGNED and was NOT verified; its policy and data may have been altered. ' +
  'Never use --allow-unsigned-bundle-INSECURE in a delivery pipeline.';

const policyDataSchema = z.looseObject({ package_id: z.string().check(z.minLength(1)) });

function refuse(code: string, message: string, hint?: string): never {
  throw new BundleVerificationError(code, message, hint === undefined ? {} : { hint });
}

/** What to do about a bundle that is not as the platform signed it, when the check has nothing more exact. */
export const ALTERED_BUNDLE_HINT =
  'fetch the bundle again (`tfgate bundle pull --package <id>`) and use it unchanged; if it is refused again, tell the platform team: it may have been tampered with';

// Every option of VerifyBundleOptions, checked by the compiler: one added there must be added here.
const VERIFY_OPTIONS = Object.keys({
  publicKeyPem: true,
  expectedPackageId: true,
  expectedAccount: true,
  scope: true,
  allowUnsigned: true,
  limits: true,
} satisfies Record<keyof VerifyBundleOptions, true>);

/**
 * A JavaScript caller's mistakes, said as such: a path where the bytes go, or an option of another function
 * (BundleEvaluator.open's publicKeyPath), which would otherwise read as "no public key was given".
 */
function checkVerifyCall(bytes: unknown, options: unknown): void {
  if (!(bytes instanceof Uint8Array)) {
    throw new UsageError(
      'invalid_option',
      `verifyBundle: the bundle must be its bytes (a Uint8Array or Buffer), not ${typeof bytes === 'string' ? 'a string' : typeof bytes}`,
      { hint: 'read the file first (readFile(path)), or use BundleEvaluator.open(path, { publicKeyPath })' },
    );
  }
  if (options === null || typeof options !== 'object') return;
  for (const key of Object.keys(options)) {
    if (VERIFY_OPTIONS.includes(key)) continue;
    const near =
      key === 'publicKeyPath' || key === 'publicKey' ? 'publicKeyPem' : closest(key, VERIFY_OPTIONS);
    throw new UsageError(
      'invalid_option',
      `verifyBundle: unknown option "${key}"${near ? ` (did you mean "${near}"?)` : ''}; the options are ${VERIFY_OPTIONS.join(', ')}`,
      {
        hint: 'publicKeyPem takes the PEM text; BundleEvaluator.open(path, { publicKeyPath }) reads both files',
      },
    );
  }
}

/** Verify, and give every refusal a hint: the check's own, else what to do about an altered bundle. */
export async function verifyBundle(
  bytes: Uint8Array,
  options: VerifyBundleOptions = {},
): Promise<VerifiedBundle> {
  checkVerifyCall(bytes, options);
  try {
    return await verifyBundleBytes(bytes, options);
  } catch (error) {
    if (!(error instanceof BundleVerificationError) || error.hint !== undefined) throw error;
    throw new BundleVerificationError(error.code, error.message, {
      hint: ALTERED_BUNDLE_HINT,
      ...(error.details === undefined ? {} : { details: error.details }),
      cause: error.cause ?? error,
    });
  }
}

async function verifyBundleBytes(
  bytes: Uint8Array,
  options: VerifyBundleOptions = {},
): Promise<VerifiedBundle> {
  const limits = { ...DEFAULT_BUNDLE_LIMITS, ...options.limits };
  const entries = readTarGz(bytes, limits);
  checkSizes(entries, limits);
  const signatureEntry = entries.find((e) => e.name === SIGNATURES_FILE);
  const contentEntries = entries.filter((e) => e !== signatureEntry);

  let signature: VerifiedSignature | undefined;
  if (signatureEntry) {
    signature = await verifySignature(signatureEntry, contentEntries, options);
  } else if (!options.allowUnsigned) {
    refuse(
      'bundle_unsigned',
      `bundle has no ${SIGNATURES_FILE}: it is unsigned, so its provenance cannot be verified`,
      'use a bundle signed with the platform key (tfgate bundle build --signing-key, or the service)',
    );
  }
  const { digests, canonical } = checkDigests(contentEntries, signature?.listed);

  const contents = readLayout(contentEntries, canonical);
  if (
    options.expectedPackageId !== undefined &&
    contents.manifest.metadata.package_id !== options.expectedPackageId
  ) {
    refuse(
      'bundle_package_mismatch',
      `bundle is for package ${JSON.stringify(contents.manifest.metadata.package_id)}, not ${JSON.stringify(options.expectedPackageId)}`,
      `give the bundle of package ${JSON.stringify(options.expectedPackageId)} (tfgate bundle pull --package ${options.expectedPackageId}), or name the bundle's own package`,
    );
  }
  const packageId = contents.manifest.metadata.package_id;
  const account = contents.manifest.metadata.account;
  if (options.expectedAccount !== undefined && account !== options.expectedAccount) {
    const expected = JSON.stringify(options.expectedAccount);
    if (account === undefined) {
      refuse(
        'bundle_account_mismatch',
        `bundle names no account, but account ${expected} was expected`,
        'pull the bundle from the service (tfgate bundle pull), which names the account, or build it with tfgate bundle build --account',
      );
    }
    refuse(
      'bundle_account_mismatch',
      `bundle is for account ${JSON.stringify(account)}, not ${expected}`,
      `pull the bundle with a key of account ${expected} (tfgate bundle pull), or name the account it was built for`,
    );
  }
  if (
    signature &&
    options.scope === undefined &&
    options.expectedPackageId === undefined &&
    signature.scope !== packageId
  ) {
    refuse(
      'scope_mismatch',
      `scope mismatch: the signature's scope is ${JSON.stringify(signature.scope ?? '')}, but the bundle is for package ${JSON.stringify(packageId)}`,
      'a bundle is signed for its own package: rebuild it without --scope (tfgate bundle build), or pull it from the service',
    );
  }
  return {
    manifest: contents.manifest,
    revision: contents.manifest.revision,
    packageId,
    account,
    data: contents.data,
    wasm: contents.wasm,
    files: contentEntries.map((e) => ({ name: e.name, size: e.data.length, sha256: digests.get(e.name)! })),
    signed: signature !== undefined,
    keyId: signature?.keyId,
    scope: signature?.scope,
  };
}

/** Sizes first, from the tar headers: nothing larger than its limit is ever parsed or hashed. */
function checkSizes(entries: readonly TarEntry[], limits: BundleLimits): void {
  for (const entry of entries) {
    const limit =
      entry.name === SIGNATURES_FILE
        ? limits.maxSignaturesBytes
        : isStructuredFile(entry.name)
          ? limits.maxJsonFileBytes
          : undefined;
    if (limit !== undefined && entry.data.length > limit) {
      refuse(
        'bundle_too_large',
        `${entry.name} is ${entry.data.length} bytes; the limit for this file is ${limit} bytes`,
        'a policy bundle is small: use the bundle exactly as `tfgate bundle build` or the service produced it',
      );
    }
  }
}

interface VerifiedSignature {
  keyId: string | undefined;
  scope: string | undefined;
  /** The signed digest of every content file, by name. */
  listed: Map<string, string>;
}

/**
 * OPA's checks (verify.go): exactly one JWS, a good signature, the scope; then every file named in the
 * list and every listed file present, all before any file is hashed.
 */
async function verifySignature(
  signatureEntry: TarEntry,
  contentEntries: readonly TarEntry[],
  options: VerifyBundleOptions,
): Promise<VerifiedSignature> {
  if (options.publicKeyPem === undefined) {
    refuse(
      'public_key_required',
      'bundle is signed but no public key was given to verify it',
      'give the platform public key (tfgate: --public-key or TFGATE_PUBLIC_KEY; the CDKTF aspect: publicKey)',
    );
  }
  const key = loadVerificationKey(options.publicKeyPem);
  const parsed = signaturesFileSchema.safeParse(parseJson(signatureEntry.data, SIGNATURES_FILE));
  if (!parsed.success)
    refuse('signature_malformed', `${SIGNATURES_FILE}: expected {"signatures": ["<JWS>"]}`);
  if (parsed.data.signatures.length !== 1) {
    refuse(
      'signature_malformed',
      `${SIGNATURES_FILE}: expected exactly one JWS, found ${parsed.data.signatures.length}`,
    );
  }
  const jws = await verifyCompactJws(parsed.data.signatures[0]!, key);
  const payload = signaturePayloadSchema.safeParse(jws.payload);
  if (!payload.success)
    refuse('signature_malformed', `${SIGNATURES_FILE}: the JWS payload has no valid "files" list`);

  const expectedScope = options.scope ?? options.expectedPackageId;
  if (expectedScope !== undefined && (payload.data.scope ?? '') !== expectedScope) {
    refuse(
      'scope_mismatch',
      `scope mismatch: the signature's scope is ${JSON.stringify(payload.data.scope ?? '')}, expected ${JSON.stringify(expectedScope)}`,
      options.scope === undefined
        ? `this bundle was signed for ${JSON.stringify(payload.data.scope ?? '')}: use the bundle of package ${JSON.stringify(expectedScope)} (tfgate bundle pull --package ${expectedScope}), or name the package it was built for`
        : `use the bundle signed for ${JSON.stringify(expectedScope)}, or verify with the scope it was signed for (tfgate bundle verify --scope)`,
    );
  }

  const listed = new Map<string, string>();
  for (const file of payload.data.files) {
    // OPA compares names without a leading slash.
    const name = file.name.replace(/^\//, '');
    if (listed.has(name)) refuse('signature_malformed', `${SIGNATURES_FILE}: ${name} is listed twice`);
    if (file.algorithm !== HASH_ALGORITHM) {
      refuse('signature_algorithm', `${name}: digest algorithm ${file.algorithm} is not ${HASH_ALGORITHM}`);
    }
    listed.set(name, file.hash.toLowerCase());
  }
  for (const entry of contentEntries) {
    if (!listed.has(entry.name)) {
      refuse(
        'file_not_signed',
        `${entry.name}: file is in the bundle but not listed in ${SIGNATURES_FILE}`,
        'the bundle was altered after signing; use the bundle as it was signed',
      );
    }
  }
  const present = new Set(contentEntries.map((e) => e.name));
  const missing = [...listed.keys()].filter((name) => !present.has(name));
  if (missing.length > 0) {
    refuse('file_missing', `${missing.join(', ')}: listed in ${SIGNATURES_FILE} but not found in the bundle`);
  }
  return {
    keyId: (jws.header.kid as string | undefined) ?? payload.data.keyid,
    scope: payload.data.scope,
    listed,
  };
}

/**
 * Every file's digest, compared with the signed one as soon as it is known: files opa hashes byte for byte
 * first (one pass, no parsing), then the structured ones through their canonical rendering, which is kept
 * because it is exactly what opa reads.
 */
function checkDigests(
  entries: readonly TarEntry[],
  listed: Map<string, string> | undefined,
): { digests: Map<string, string>; canonical: Map<string, CanonicalRendering> } {
  const digests = new Map<string, string>();
  const canonical = new Map<string, CanonicalRendering>();
  const check = (entry: TarEntry, hashed: Uint8Array) => {
    const actual = createHash('sha256').update(hashed).digest('hex');
    const signed = listed?.get(entry.name);
    if (listed && actual !== signed) {
      refuse(
        'digest_mismatch',
        `${entry.name}: digest mismatch (signed ${signed}, got ${actual}): the file was altered after signing`,
      );
    }
    digests.set(entry.name, actual);
  };
  for (const entry of entries) if (!isStructuredFile(entry.name)) check(entry, entry.data);
  for (const entry of entries) {
    if (!isStructuredFile(entry.name)) continue;
    const signed = listed?.get(entry.name);
    if (signed !== undefined && createHash('sha256').update(entry.data).digest('hex') === signed) {
      // The file is byte for byte the canonical rendering that was signed (as tfgate writes it): rendering
      // it again gives the same bytes, so skip that (the rendering of a 30 KB data.json took ~3 ms cold).
      digests.set(entry.name, signed);
      canonical.set(entry.name, { bytes: entry.data, escapedKeys: hasEscapedKey(entry.data) });
      continue;
    }
    let rendered: CanonicalRendering;
    try {
      rendered = renderCanonicalJson(entry.data);
    } catch (error) {
      if (!(error instanceof CanonicalJsonError)) throw error;
      return refuse(
        'digest_mismatch',
        `${entry.name}: digest mismatch (not JSON that tfgate and opa read the same way: ${error.message})`,
        'the bundle was altered after signing; use the bundle as it was signed',
      );
    }
    check(entry, rendered.bytes);
    canonical.set(entry.name, rendered);
  }
  return { digests, canonical };
}

// One JSON string token (unrolled, so linear): in a JSON text, the next quote after a string opens the next.
const STRING_TOKEN = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"/g;

/** Whether some key of a compact (canonical) JSON text holds an escape (canonical-read.ts then avoids JSON.parse). */
function hasEscapedKey(bytes: Buffer): boolean {
  if (!bytes.includes(BACKSLASH)) return false;
  const text = bytes.toString('latin1');
  STRING_TOKEN.lastIndex = 0;
  for (let token = STRING_TOKEN.exec(text); token !== null; token = STRING_TOKEN.exec(text)) {
    if (text.charCodeAt(STRING_TOKEN.lastIndex) === COLON && token[0].includes('\\')) return true;
  }
  return false;
}

const COLON = 0x3a;
const BACKSLASH = 0x5c;

/** Exactly the files tfgate reads, and nothing opa would read differently (nested data, stray manifests). */
function readLayout(
  entries: readonly TarEntry[],
  canonical: ReadonlyMap<string, CanonicalRendering>,
): {
  manifest: BundleManifest;
  data: PolicyData;
  wasm: Buffer;
} {
  for (const entry of entries) {
    const known =
      entry.name === MANIFEST_FILE ||
      entry.name === DATA_FILE ||
      entry.name === WASM_FILE ||
      (entry.name.startsWith(`${REGO_DIR}/`) && entry.name.endsWith('.rego'));
    if (!known) refuse('bundle_unexpected_file', `${entry.name}: not part of a tfgate bundle`);
  }
  const byName = new Map(entries.map((e) => [e.name, e.data]));
  const need = (name: string): Buffer =>
    byName.get(name) ?? refuse('bundle_incomplete', `${name}: missing from the bundle`);
  // The canonical rendering, not the raw file: the same value opa reads (duplicate keys, escapes resolved).
  const json = (name: string): unknown => {
    need(name);
    return readCanonicalJson(canonical.get(name)!);
  };

  const manifestDoc = json(MANIFEST_FILE);
  refuseForeignManifest(manifestDoc);
  const manifest = manifestSchema.safeParse(manifestDoc);
  if (!manifest.success) {
    refuse(
      'bundle_invalid_manifest',
      `${MANIFEST_FILE}: ${manifest.error.issues.map(describeIssue).join('; ')}`,
    );
  }
  const dataDoc = json(DATA_FILE) as Record<string, unknown> | null;
  const data = policyDataSchema.safeParse(dataDoc?.[BUNDLE_ROOT]);
  if (!data.success)
    refuse('bundle_invalid_data', `${DATA_FILE}: expected the policy data under "${BUNDLE_ROOT}"`);
  if (data.data.package_id !== manifest.data.metadata.package_id) {
    refuse(
      'bundle_invalid_data',
      `${DATA_FILE}: package ${JSON.stringify(data.data.package_id)} differs from the manifest's ${JSON.stringify(manifest.data.metadata.package_id)}`,
    );
  }
  const wasm = need(WASM_FILE);
  if (wasm.length < 8 || wasm.readUInt32BE(0) !== 0x0061736d)
    refuse('bundle_invalid_wasm', `${WASM_FILE}: not a wasm module`);
  return { manifest: manifest.data, data: data.data as unknown as PolicyData, wasm };
}

/** An untrusted JSON file of the bundle (not JSON.parse: nodejs/node#63785); a byte order mark is ignored. */
function parseJson(bytes: Buffer, name: string): unknown {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  try {
    return parseUntrustedJson(bytes.subarray(bom));
  } catch (error) {
    return refuse('bundle_invalid_json', `${name}: not valid JSON: ${(error as Error).message}`);
  }
}

/** What tfgate writes in .manifest; anything else (a `wasm` list, per-file Rego versions) makes opa read it otherwise. */
const MANIFEST_KEYS = new Set(['revision', 'roots', 'rego_version', 'metadata']);

/**
 * A signed manifest tfgate would not have written is refused, so that opa and tfgate read one bundle alike:
 * a `wasm` key made opa load policy.wasm as the policy (an opa without a wasm engine then decided nothing
 * while tfgate decided), and other roots gave the bundle other parts of opa's data tree.
 */
function refuseForeignManifest(doc: unknown): void {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return; // the schema says what it expected
  const foreign = Object.keys(doc).filter((key) => !MANIFEST_KEYS.has(key));
  if (foreign.length > 0) {
    refuse(
      'bundle_invalid_manifest',
      `${MANIFEST_FILE}: ${foreign.map((key) => JSON.stringify(key)).join(', ')} ${nounFor(foreign.length, 'is', 'are')} not written by tfgate, and opa would read the bundle differently from tfgate with ${nounFor(foreign.length, 'it', 'them')}`,
      'use a bundle built by tfgate (tfgate bundle build, or the service)',
    );
  }
  const roots = (doc as { roots?: unknown }).roots;
  if (roots !== undefined && !(Array.isArray(roots) && roots.length === 1 && roots[0] === BUNDLE_ROOT)) {
    refuse(
      'bundle_invalid_manifest',
      `${MANIFEST_FILE}: roots must be ["${BUNDLE_ROOT}"], not ${JSON.stringify(roots).slice(0, 200)}: opa would give the bundle other parts of its data`,
      'use a bundle built by tfgate (tfgate bundle build, or the service)',
    );
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return `${issue.path.join('.') || '(root)'}: ${issue.message}`;
}
