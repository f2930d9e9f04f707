// The bundle layout: OPA's file names and the shapes of .manifest and .signatures.json, validated with zod.
import * as z from '../../schemas/zod.js';

export const MANIFEST_FILE = '.manifest';
export const DATA_FILE = 'data.json';
export const SIGNATURES_FILE = '.signatures.json';
/** A plain file: the manifest does not declare it under `wasm`, so an opa without a wasm engine still loads it. */
export const WASM_FILE = 'policy.wasm';
/** Rego sources live under the policy's data path, as their package says. */
export const REGO_DIR = 'tfgate';
export const BUNDLE_ROOT = 'tfgate';
export const HASH_ALGORITHM = 'SHA-256';

/** OPA hashes these canonically (parsed JSON, sorted keys); all other files byte for byte (IsStructuredDoc). */
export function isStructuredFile(name: string): boolean {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return base === DATA_FILE || base === 'data.yaml' || base === MANIFEST_FILE || base === 'signatures.json';
}

export const manifestSchema = z.object({
  revision: z.string().check(z.minLength(1)),
  roots: z.array(z.string()),
  rego_version: z.optional(z.number().check(z.int())),
  metadata: z.object({
    package_id: z.string().check(z.minLength(1)),
    /** Entrypoints of policy.wasm, kept out of `wasm` on purpose (see WASM_FILE). */
    entrypoints: z.object({ plan: z.string(), drift: z.string() }),
    wasm_module: z.string(),
    built_by: z.optional(z.string()),
    /** The service account whose package this is: two accounts may each have a package of one id. */
    account: z.optional(z.string().check(z.minLength(1))),
  }),
});
export type BundleManifest = z.infer<typeof manifestSchema>;

export const signaturesFileSchema = z.object({ signatures: z.array(z.string()) });

/** The JWS payload, as OPA's DecodedSignature reads it. */
export const signaturePayloadSchema = z.object({
  files: z.array(z.object({ name: z.string(), hash: z.string(), algorithm: z.string() })),
  keyid: z.optional(z.string()),
  scope: z.optional(z.string()),
  iat: z.optional(z.number()),
  iss: z.optional(z.string()),
});
export type SignaturePayload = z.infer<typeof signaturePayloadSchema>;
