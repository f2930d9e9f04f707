// `tfgate bundle pull`: download a package's signed bundle and the platform public key, verify them, and
// cache them by ETag, so a pipeline pulls once and then decides with no service call.

import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CLIENT_FLAG_NAMES, clientFlagsSchema, ServiceClient, type TransportDeps } from '../client/index.js';
import { nonEmpty, packageIdSchema, parseOptions } from '../options/common.js';
import { type VerifiedBundle, verifyBundle } from '../policy/bundle/index.js';
import { writeFileAtomic } from '../report/index.js';

export const DEFAULT_BUNDLE_CACHE = '.tfgate/bundles';

export const bundlePullOptionsSchema = z.object({
  packageId: packageIdSchema,
  /** The cache root; each package gets its own directory under it. */
  dir: z.string().min(1).default(DEFAULT_BUNDLE_CACHE),
  client: clientFlagsSchema,
});
export type BundlePullOptions = z.input<typeof bundlePullOptionsSchema>;

export interface BundlePullFlags {
  package?: string;
  dir?: string;
  baseUrl?: string;
  caFile?: string;
  timeout?: string;
  retries?: string;
}

export function resolveBundlePullOptions(
  flags: BundlePullFlags,
  env: NodeJS.ProcessEnv,
): z.output<typeof bundlePullOptionsSchema> {
  return parseOptions(
    bundlePullOptionsSchema,
    {
      packageId: flags.package ?? nonEmpty(env.TFGATE_PACKAGE),
      dir: nonEmpty(flags.dir ?? env.TFGATE_BUNDLE_DIR),
      client: {
        baseUrl: flags.baseUrl,
        caFile: flags.caFile,
        timeout: flags.timeout,
        retries: flags.retries,
      },
    },
    { ...CLIENT_FLAG_NAMES, packageId: '--package', dir: '--dir' },
  );
}

/** What the cache directory of one package holds besides the two files. */
const cacheMetaSchema = z.object({
  package_id: z.string(),
  etag: z.string().optional(),
  revision: z.string(),
  key_id: z.string().optional(),
  pulled_at: z.string(),
  base_url: z.string(),
});
type CacheMeta = z.infer<typeof cacheMetaSchema>;

export interface BundlePullResult {
  packageId: string;
  bundlePath: string;
  publicKeyPath: string;
  revision: string;
  etag?: string;
  keyId?: string;
  /** True when the service answered 304 and the cached bundle was reused (after verifying it again). */
  fromCache: boolean;
}

/** Each cache file is whole or absent. */
function writeAtomic(path: string, content: string | Buffer): Promise<void> {
  return writeFileAtomic(path, content, {
    code: 'cache_not_written',
    what: 'the bundle cache file',
    hint: 'check that --dir is writable',
  });
}

async function readCache(dir: string): Promise<{ meta: CacheMeta; bundle: Buffer } | undefined> {
  try {
    const meta = cacheMetaSchema.safeParse(JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')));
    if (!meta.success) return undefined;
    return { meta: meta.data, bundle: await readFile(join(dir, 'bundle.tar.gz')) };
  } catch {
    // No cache, or a damaged one: download again.
    return undefined;
  }
}

export interface BundlePullContext {
  env: NodeJS.ProcessEnv;
  transport?: TransportDeps;
}

export async function runBundlePull(
  input: BundlePullOptions,
  context: BundlePullContext,
): Promise<BundlePullResult> {
  const options = bundlePullOptionsSchema.parse(input);
  const dir = resolve(options.dir, options.packageId);
  const bundlePath = join(dir, 'bundle.tar.gz');
  const publicKeyPath = join(dir, 'public-key.pem');
  const client = await ServiceClient.fromOptions(options.client, context.env, context.transport);
  try {
    // The key first, every time: a rotated key must not leave an old bundle trusted.
    const publicKeyPem = await client.publicKeyPem();
    const verify = (bytes: Uint8Array): Promise<VerifiedBundle> =>
      verifyBundle(bytes, { publicKeyPem, expectedPackageId: options.packageId });

    const cached = await readCache(dir);
    let verified: VerifiedBundle | undefined;
    let etag: string | undefined;
    let fromCache = false;
    if (cached?.meta.etag && cached.meta.base_url === client.baseUrl) {
      const download = await client.bundle(options.packageId, cached.meta.etag);
      if (download.status === 'not-modified') {
        // Still verify what is on disk: a cache can be tampered with between runs.
        verified = await verify(cached.bundle).catch(() => undefined);
        if (verified) {
          fromCache = true;
          etag = cached.meta.etag;
        }
      } else {
        verified = await verify(download.bytes);
        await mkdir(dir, { recursive: true });
        await writeAtomic(bundlePath, download.bytes);
        etag = download.etag;
      }
    }
    if (!verified) {
      const download = await client.bundle(options.packageId);
      if (download.status !== 'downloaded') throw new Error('unreachable: unconditional GET answered 304');
      verified = await verify(download.bytes);
      await mkdir(dir, { recursive: true });
      await writeAtomic(bundlePath, download.bytes);
      etag = download.etag;
    }
    await writeAtomic(publicKeyPath, publicKeyPem);
    const meta: CacheMeta = {
      package_id: options.packageId,
      ...(etag ? { etag } : {}),
      revision: verified.revision,
      ...(verified.keyId ? { key_id: verified.keyId } : {}),
      pulled_at: new Date().toISOString(),
      base_url: client.baseUrl,
    };
    await writeAtomic(join(dir, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
    return {
      packageId: options.packageId,
      bundlePath,
      publicKeyPath,
      revision: verified.revision,
      ...(etag ? { etag } : {}),
      ...(verified.keyId ? { keyId: verified.keyId } : {}),
      fromCache,
    };
  } finally {
    await client.close();
  }
}

/** Human summary: the paths, and the command that uses them with no service call. */
export function describeBundlePull(result: BundlePullResult): string {
  return [
    `${result.fromCache ? 'cached (not modified)' : 'pulled'}: package ${result.packageId}, revision ${result.revision}${result.keyId ? `, key id ${result.keyId}` : ''}`,
    `bundle:     ${result.bundlePath}`,
    `public key: ${result.publicKeyPath}`,
    `use: tfgate check --bundle ${result.bundlePath} --public-key ${result.publicKeyPath} --package ${result.packageId} --plan-file <planfile>`,
    '',
  ].join('\n');
}
