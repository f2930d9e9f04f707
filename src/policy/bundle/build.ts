// Build a signed OPA bundle for one package: .manifest, data.json, the Rego, policy.wasm, .signatures.json.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Design } from '../../design/index.js';
import { compilePolicyData, type PolicyData } from '../data.js';
import { DRIFT_ENTRYPOINT, PLAN_ENTRYPOINT, SHIPPED_WASM_URL } from '../engine.js';
import { canonicalJson, canonicalJsonDigest } from './canonical-json.js';
import type { BundleManifest, SignaturePayload } from './format.js';
import {
  BUNDLE_ROOT,
  DATA_FILE,
  HASH_ALGORITHM,
  isStructuredFile,
  MANIFEST_FILE,
  REGO_DIR,
  SIGNATURES_FILE,
  WASM_FILE,
} from './format.js';
import { keyIdFor, loadSigningKey, signCompactJws } from './jws.js';
import type { TarEntry } from './tar.js';
import { writeTarGz } from './tar-write.js';

/** The policy as it ships: Rego sources (tests excluded) and the compiled wasm. */
export interface PolicySources {
  /** Bundle paths such as "tfgate/conformance.rego", with their source. */
  regoFiles: Array<{ name: string; source: Buffer }>;
  wasm: Buffer;
}

export interface BundleSigning {
  signingKeyPem: string | Buffer;
  /** Defaults to keyIdFor(the public key). */
  keyId?: string;
  /** The signature's `scope` claim; defaults to the package id (verify with `opa build --scope <package_id>`). */
  scope?: string;
  /** Defaults to a content hash of the data and the policy. */
  revision?: string;
}

export interface BuildBundleOptions extends BundleSigning {
  design: Design;
  /** The account the bundle is for (.manifest metadata.account); checked by verifiers given an account. */
  account?: string;
  /** Where policy/tfgate/*.rego and policy/policy.wasm live; defaults to the copy that ships with tfgate. */
  policyDir?: string;
}

/**
 * The policy/ folder at the package root: the shipped policy.wasm's folder. Resolved from engine.ts's URL,
 * not this module's: the bundled CLI (scripts/bundle-cli.mjs) puts this code two levels deep, not three.
 */
export function defaultPolicyDir(): string {
  return resolve(fileURLToPath(new URL('.', SHIPPED_WASM_URL)));
}

export async function loadPolicySources(policyDir = defaultPolicyDir()): Promise<PolicySources> {
  const regoDir = join(policyDir, REGO_DIR);
  const names = (await readdir(regoDir))
    .filter((n) => n.endsWith('.rego') && !n.endsWith('_test.rego'))
    .sort();
  const regoFiles = await Promise.all(
    names.map(async (n) => ({ name: `${REGO_DIR}/${n}`, source: await readFile(join(regoDir, n)) })),
  );
  return { regoFiles, wasm: await readFile(join(policyDir, WASM_FILE)) };
}

export async function buildBundle(options: BuildBundleOptions): Promise<Buffer> {
  const data = compilePolicyData(options.design);
  const policy = await loadPolicySources(options.policyDir);
  return assembleBundle(
    { packageId: options.design.package_id, account: options.account, data, policy },
    options,
  );
}

export interface BundleContents {
  packageId: string;
  /** The account whose package this is; the service always sets it. */
  account?: string;
  /** What the Rego reads at data.tfgate. */
  data: PolicyData | Record<string, unknown>;
  policy: PolicySources;
}

/** Lay out, hash and sign a bundle. Same inputs, same bytes: fixed mtimes, sorted entries, no timestamps. */
export function assembleBundle(contents: BundleContents, signing: BundleSigning): Buffer {
  const key = loadSigningKey(signing.signingKeyPem);
  const keyId = signing.keyId ?? keyIdFor(key);
  const dataFile = canonicalJsonFile({ [BUNDLE_ROOT]: contents.data });
  const policyFiles: TarEntry[] = [
    ...contents.policy.regoFiles.map((f) => ({ name: f.name, data: f.source })),
    { name: WASM_FILE, data: contents.policy.wasm },
  ];
  const manifest: BundleManifest = {
    revision: signing.revision ?? contentRevision([{ name: DATA_FILE, data: dataFile }, ...policyFiles]),
    roots: [BUNDLE_ROOT],
    rego_version: 1,
    metadata: {
      package_id: contents.packageId,
      entrypoints: { plan: PLAN_ENTRYPOINT, drift: DRIFT_ENTRYPOINT },
      wasm_module: WASM_FILE,
      built_by: 'tfgate',
      ...(contents.account === undefined ? {} : { account: contents.account }),
    },
  };
  const files = [
    { name: MANIFEST_FILE, data: canonicalJsonFile(manifest) },
    { name: DATA_FILE, data: dataFile },
    ...policyFiles,
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  const payload: SignaturePayload = {
    files: files.map((f) => ({
      name: f.name,
      hash: fileDigest(f).toString('hex'),
      algorithm: HASH_ALGORITHM,
    })),
    keyid: keyId,
    scope: signing.scope ?? contents.packageId,
  };
  const token = signCompactJws({ kid: keyId }, payload, key);
  const signatures = { name: SIGNATURES_FILE, data: jsonFile({ signatures: [token] }) };
  return writeTarGz([...files, signatures].sort((a, b) => (a.name < b.name ? -1 : 1)));
}

/** OPA's per-file digest: canonical JSON for structured files, raw bytes for everything else. */
export function fileDigest(entry: TarEntry): Buffer {
  if (isStructuredFile(entry.name)) return canonicalJsonDigest(entry.data);
  return createHash('sha256').update(entry.data).digest();
}

/**
 * A structured file written in the very form OPA hashes (compact, keys sorted), so that its raw SHA-256 is the
 * signed digest and a verifier can skip rendering it (verify.ts). Bundles with indented files still verify.
 */
function canonicalJsonFile(value: unknown): Buffer {
  return canonicalJson(Buffer.from(JSON.stringify(value), 'utf8'));
}

function jsonFile(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

function contentRevision(entries: TarEntry[]): string {
  const hash = createHash('sha256');
  for (const entry of entries) hash.update(`${entry.name}\0${fileDigest(entry).toString('hex')}\n`);
  return hash.digest('hex').slice(0, 20);
}
