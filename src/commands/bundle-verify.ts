// `tfgate bundle verify`: what opa would check (signature, scope, every file's digest), and tfgate's layout.
import { readVerifiedBundle, type VerifiedBundle } from '../policy/bundle/index.js';
import * as z from '../schemas/zod.js';
import { requireFiles } from './input-files.js';

export const bundleVerifyOptionsSchema = z
  .object({
    bundle: z.string().check(z.minLength(1)),
    publicKey: z.optional(z.string().check(z.minLength(1))),
    /** The variable that named the key file (TFGATE_PUBLIC_KEY), for messages about it; absent: --public-key. */
    publicKeyGivenAs: z.optional(z.string().check(z.minLength(1))),
    packageId: z.optional(z.string().check(z.minLength(1))),
    scope: z.optional(z.string().check(z.minLength(1))),
    account: z.optional(z.string().check(z.minLength(1))),
    allowUnsigned: z._default(z.boolean(), false),
  })
  .check(
    z.refine((o) => o.publicKey !== undefined || o.allowUnsigned, {
      message: 'a bundle is verified with the platform public key: pass --public-key <pem>',
      path: ['publicKey'],
    }),
  );
export type BundleVerifyOptions = z.output<typeof bundleVerifyOptionsSchema>;

/** Resolves with what was verified; a refusal is a thrown BundleVerificationError (exit 4) saying which check failed. */
export async function runBundleVerify(options: BundleVerifyOptions): Promise<VerifiedBundle> {
  // A path that names nothing is a usage error (exit 1), as in every command; a bad bundle is exit 4.
  await requireFiles([
    {
      flag: 'the bundle file',
      path: options.bundle,
      hint: 'check the path; `tfgate bundle pull --package <id>` downloads a bundle',
    },
    ...(options.publicKey === undefined
      ? []
      : [{ flag: options.publicKeyGivenAs ?? '--public-key', path: options.publicKey }]),
  ]);
  return readVerifiedBundle(options.bundle, {
    ...(options.publicKey === undefined ? {} : { publicKey: { path: options.publicKey } }),
    expectedPackageId: options.packageId,
    scope: options.scope,
    expectedAccount: options.account,
    allowUnsigned: options.allowUnsigned,
  });
}

/** The human summary `tfgate bundle verify` prints. */
export function describeVerifiedBundle(path: string, bundle: VerifiedBundle): string {
  const lines = [
    bundle.signed
      ? `verified ${path}`
      : `NOT verified ${path} (unsigned; accepted only because of --allow-unsigned-bundle-INSECURE)`,
    `  package   ${bundle.packageId}`,
    `  account   ${bundle.account ?? '- (none named)'}`,
    `  revision  ${bundle.revision}`,
    `  key id    ${bundle.keyId ?? '-'}`,
    `  scope     ${bundle.scope ?? '-'}`,
    `  files     ${bundle.files.length}${bundle.signed ? ', each matching its signed SHA-256 digest' : ''}`,
    ...bundle.files.map((f) => `    ${f.sha256}  ${f.name} (${f.size} bytes)`),
  ];
  return `${lines.join('\n')}\n`;
}
