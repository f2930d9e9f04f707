// `tfgate bundle build`: the package's design and the shipped policy, signed into an OPA bundle.
import { readFile } from 'node:fs/promises';
import { loadDesign } from '../design/index.js';
import { UsageError } from '../errors/index.js';
import { shownPath, withShownPath } from '../errors/shown.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { buildBundle, loadSigningKey, publicKeyPem, verifyBundle } from '../policy/bundle/index.js';
import * as z from '../schemas/zod.js';
import { requireFiles } from './input-files.js';

export const bundleBuildOptionsSchema = z.object({
  design: z.string().check(z.minLength(1)),
  /** Path of the PEM private key (RSA). */
  signingKey: z.string().check(z.minLength(1)),
  /** The variable that named the key file (TFGATE_SIGNING_KEY), for messages about it; absent: --signing-key. */
  signingKeyGivenAs: z.optional(z.string().check(z.minLength(1))),
  keyId: z.optional(z.string().check(z.minLength(1))),
  /** The signature's scope claim; defaults to the package id. */
  scope: z.optional(z.string().check(z.minLength(1))),
  revision: z.optional(z.string().check(z.minLength(1))),
  /** The service account the bundle is for (.manifest metadata.account). */
  account: z.optional(z.string().check(z.minLength(1))),
  output: z.string().check(z.minLength(1)),
  /** Where policy/tfgate/*.rego and policy.wasm are; defaults to the policy that ships with tfgate. */
  policyDir: z.optional(z.string().check(z.minLength(1))),
});
export type BundleBuildOptions = z.output<typeof bundleBuildOptionsSchema>;

export interface BundleBuildResult {
  path: string;
  packageId: string;
  revision: string;
  keyId: string | undefined;
  scope: string | undefined;
  account: string | undefined;
  bytes: number;
  files: Array<{ name: string; size: number; sha256: string }>;
}

export async function runBundleBuild(options: BundleBuildOptions): Promise<BundleBuildResult> {
  await requireFiles([
    {
      flag: '--design',
      path: options.design,
      hint: 'pass the path of an approved design document (YAML or JSON)',
    },
    {
      flag: options.signingKeyGivenAs ?? '--signing-key',
      path: options.signingKey,
      hint: 'pass the platform private key (PEM); `openssl genrsa -out signing.pem 3072` makes one for a trial',
    },
  ]);
  const design = await loadDesign(options.design);
  const signingKeyPem = await readFile(options.signingKey).catch((error: unknown) => {
    throw new UsageError(
      'file_unreadable',
      `cannot read the signing key ${shownPath(options.signingKey)}: ${withShownPath((error as Error).message, options.signingKey)}`,
      {
        cause: error,
      },
    );
  });
  const bundle = await buildBundle({
    design,
    signingKeyPem,
    keyId: options.keyId,
    scope: options.scope,
    revision: options.revision,
    account: options.account,
    policyDir: options.policyDir,
  });
  // Verify what we are about to publish with the key's own public half: a bundle we cannot verify is never written.
  const verified = await verifyBundle(bundle, {
    publicKeyPem: publicKeyPem(loadSigningKey(signingKeyPem)),
    scope: options.scope ?? design.package_id,
    expectedAccount: options.account,
  });
  // Whole or absent: never a half-written bundle.
  await writeFileAtomic(options.output, bundle, {
    code: 'output_not_written',
    what: 'the bundle',
    hint: 'check that the directory exists and is writable',
  });
  return {
    path: options.output,
    packageId: verified.packageId,
    revision: verified.revision,
    keyId: verified.keyId,
    scope: verified.scope,
    account: verified.account,
    bytes: bundle.length,
    files: verified.files,
  };
}
