// Verify a bundle before any of it is used: the JWS, its scope, and every file's digest, as opa does;
// then the layout tfgate relies on, so that tfgate and opa read exactly the same files.
import { z } from 'zod';
import { BundleVerificationError } from '../../errors/index.js';
import type { PolicyData } from '../data.js';
import { fileDigest } from './build.js';
import {
  BUNDLE_ROOT,
  type BundleManifest,
  DATA_FILE,
  HASH_ALGORITHM,
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
  /** The scope the signature must carry; defaults to expectedPackageId, else the signed manifest's package id. */
  scope?: string;
  /** Accept a bundle without .signatures.json. INSECURE: callers must warn every time it is used. */
  allowUnsigned?: boolean;
  limits?: Partial<TarLimits>;
}

export interface VerifiedBundle {
  manifest: BundleManifest;
  revision: string;
  packageId: string;
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

const policyDataSchema = z.looseObject({ package_id: z.string().min(1) });

function refuse(code: string, message: string, hint?: string): never {
  throw new BundleVerificationError(code, message, hint === undefined ? {} : { hint });
}

export async function verifyBundle(
  bytes: Uint8Array,
  options: VerifyBundleOptions = {},
): Promise<VerifiedBundle> {
  const entries = readTarGz(bytes, { ...DEFAULT_TAR_LIMITS, ...options.limits });
  const signatureEntry = entries.find((e) => e.name === SIGNATURES_FILE);
  const contentEntries = entries.filter((e) => e !== signatureEntry);

  let signed = false;
  let keyId: string | undefined;
  let scope: string | undefined;
  const digests = new Map<string, string>();
  if (signatureEntry) {
    ({ keyId, scope } = verifySignature(signatureEntry, contentEntries, options));
    signed = true;
  } else if (!options.allowUnsigned) {
    refuse(
      'bundle_unsigned',
      `bundle has no ${SIGNATURES_FILE}: it is unsigned, so its provenance cannot be verified`,
      'use a bundle signed with the platform key (tfgate bundle build --signing-key, or the service)',
    );
  }
  for (const entry of contentEntries) digests.set(entry.name, safeDigest(entry));

  const contents = readLayout(contentEntries);
  if (
    options.expectedPackageId !== undefined &&
    contents.manifest.metadata.package_id !== options.expectedPackageId
  ) {
    refuse(
      'bundle_package_mismatch',
      `bundle is for package ${JSON.stringify(contents.manifest.metadata.package_id)}, not ${JSON.stringify(options.expectedPackageId)}`,
    );
  }
  const packageId = contents.manifest.metadata.package_id;
  if (
    signed &&
    options.scope === undefined &&
    options.expectedPackageId === undefined &&
    scope !== packageId
  ) {
    refuse(
      'scope_mismatch',
      `scope mismatch: the signature's scope is ${JSON.stringify(scope ?? '')}, but the bundle is for package ${JSON.stringify(packageId)}`,
    );
  }
  return {
    manifest: contents.manifest,
    revision: contents.manifest.revision,
    packageId,
    data: contents.data,
    wasm: contents.wasm,
    files: contentEntries.map((e) => ({ name: e.name, size: e.data.length, sha256: digests.get(e.name)! })),
    signed,
    keyId,
    scope,
  };
}

/** OPA's checks (verify.go): exactly one JWS, a good signature, the scope, then every file against the list. */
function verifySignature(
  signatureEntry: TarEntry,
  contentEntries: readonly TarEntry[],
  options: VerifyBundleOptions,
): { keyId: string | undefined; scope: string | undefined } {
  if (options.publicKeyPem === undefined) {
    refuse(
      'public_key_required',
      'bundle is signed but no public key was given to verify it',
      'pass --public-key <pem> with the platform public key',
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
  const jws = verifyCompactJws(parsed.data.signatures[0]!, key);
  const payload = signaturePayloadSchema.safeParse(jws.payload);
  if (!payload.success)
    refuse('signature_malformed', `${SIGNATURES_FILE}: the JWS payload has no valid "files" list`);

  const expectedScope = options.scope ?? options.expectedPackageId;
  if (expectedScope !== undefined && (payload.data.scope ?? '') !== expectedScope) {
    refuse(
      'scope_mismatch',
      `scope mismatch: the signature's scope is ${JSON.stringify(payload.data.scope ?? '')}, expected ${JSON.stringify(expectedScope)}`,
    );
  }

  const listed = new Map<string, { hash: string; algorithm: string }>();
  for (const file of payload.data.files) {
    // OPA compares names without a leading slash.
    const name = file.name.replace(/^\//, '');
    if (listed.has(name)) refuse('signature_malformed', `${SIGNATURES_FILE}: ${name} is listed twice`);
    listed.set(name, file);
  }
  for (const entry of contentEntries) {
    const file = listed.get(entry.name);
    if (!file) {
      refuse(
        'file_not_signed',
        `${entry.name}: file is in the bundle but not listed in ${SIGNATURES_FILE}`,
        'the bundle was altered after signing; use the bundle as it was signed',
      );
    }
    if (file.algorithm !== HASH_ALGORITHM) {
      refuse(
        'signature_algorithm',
        `${entry.name}: digest algorithm ${file.algorithm} is not ${HASH_ALGORITHM}`,
      );
    }
    const actual = safeDigest(entry);
    if (actual !== file.hash.toLowerCase()) {
      refuse(
        'digest_mismatch',
        `${entry.name}: digest mismatch (signed ${file.hash}, got ${actual}): the file was altered after signing`,
      );
    }
    listed.delete(entry.name);
  }
  if (listed.size > 0) {
    refuse(
      'file_missing',
      `${[...listed.keys()].join(', ')}: listed in ${SIGNATURES_FILE} but not found in the bundle`,
    );
  }
  return { keyId: (jws.header.kid as string | undefined) ?? payload.data.keyid, scope: payload.data.scope };
}

/** Exactly the files tfgate reads, and nothing opa would read differently (nested data, stray manifests). */
function readLayout(entries: readonly TarEntry[]): {
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

  const manifest = manifestSchema.safeParse(parseJson(need(MANIFEST_FILE), MANIFEST_FILE));
  if (!manifest.success) {
    refuse(
      'bundle_invalid_manifest',
      `${MANIFEST_FILE}: ${manifest.error.issues.map(describeIssue).join('; ')}`,
    );
  }
  const dataDoc = parseJson(need(DATA_FILE), DATA_FILE) as Record<string, unknown> | null;
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

/** A structured file that is not JSON cannot match any signed digest: say so, naming the file. */
function safeDigest(entry: TarEntry): string {
  try {
    return fileDigest(entry).toString('hex');
  } catch (error) {
    return refuse(
      'digest_mismatch',
      `${entry.name}: digest mismatch (not valid JSON: ${(error as Error).message})`,
    );
  }
}

function parseJson(bytes: Buffer, name: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    return refuse('bundle_invalid_json', `${name}: not valid JSON: ${(error as Error).message}`);
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return `${issue.path.join('.') || '(root)'}: ${issue.message}`;
}
