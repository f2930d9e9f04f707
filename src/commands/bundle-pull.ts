// `tfgate bundle pull`: download a package's signed bundle and the platform public key, verify them, and
// cache them by ETag, so a pipeline pulls once and then decides with no service call. The cache is input
// like any other: a cached bundle is used only when it verifies and its signed revision is the one the
// service has just confirmed as current, and its files are owner-only and written whole.
import { chmod, lstat, mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { clientFlagsSchema, ServiceClient, type TransportDeps } from '../client/index.js';
import { isTfgateError, UsageError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { parseUntrustedJson } from '../json/untrusted.js';
import { packageIdSchema } from '../options/common.js';
import { DEFAULT_BUNDLE_LIMITS, readVerifiedBundle, type VerifiedBundle } from '../policy/bundle/index.js';
import * as z from '../schemas/zod.js';

export const DEFAULT_BUNDLE_CACHE = '.tfgate/bundles';

export const bundlePullOptionsSchema = z.object({
  packageId: packageIdSchema,
  /** The cache root; each package gets its own directory under it. */
  dir: z._default(z.string().check(z.minLength(1)), DEFAULT_BUNDLE_CACHE),
  client: clientFlagsSchema,
});
export type BundlePullOptions = z.output<typeof bundlePullOptionsSchema>;

/** What the cache directory of one package holds besides the two files. */
const cacheMetaSchema = z.object({
  package_id: z.string(),
  etag: z.optional(z.string()),
  revision: z.string(),
  key_id: z.optional(z.string()),
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
  /** The account the service built the bundle for (its package's account). */
  account?: string;
  /**
   * True when the service answered 304 and the cached bundle was reused: verified again, and its signed
   * revision is the one the service confirmed as current.
   */
  fromCache: boolean;
  /** What was found wrong in the cache and so not trusted (downloaded again or replaced), in plain words. */
  cacheNotes: string[];
}

/** meta.json is a few hundred bytes. */
const META_MAX_BYTES = 64 * 1024;

/** Cache files are the owner's alone: nobody else may swap a bundle or a key in between two runs. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** Each cache file is whole or absent, and owner-only from its first byte. */
function writeAtomic(path: string, content: string | Buffer): Promise<void> {
  return writeFileAtomic(
    path,
    content,
    { code: 'cache_not_written', what: 'the bundle cache file', hint: 'check that --dir is writable' },
    FILE_MODE,
  );
}

/** Owned by someone else, or writable by others: what it holds may have been put there by anyone. */
function unsafeMode(stats: { mode: number; uid: number }): boolean {
  return (stats.mode & 0o022) !== 0 || (process.getuid !== undefined && stats.uid !== process.getuid());
}

async function makePrivateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    await chmod(dir, DIR_MODE);
  } catch (error) {
    throw new UsageError(
      'cache_not_written',
      `cannot make the bundle cache ${dir} private: ${(error as Error).message}`,
      {
        hint: 'use a --dir that you own',
        cause: error,
      },
    );
  }
}

/** The service's ETag is the bundle revision (service contract): `"<revision>"`, possibly weak. */
export function etagRevision(etag: string): string {
  return etag
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
}

/** What the cache holds, if it can be trusted as far as a cache can: checked again against the service. */
async function readCache(
  dir: string,
  packageId: string,
  notes: string[],
): Promise<{ meta: CacheMeta; bundle: Buffer } | undefined> {
  const dirStats = await lstat(dir).catch(() => undefined);
  if (!dirStats) return undefined;
  if (!dirStats.isDirectory() || unsafeMode(dirStats)) {
    notes.push(
      `the cache directory ${dir} is not a private directory (mode ${(dirStats.mode & 0o777).toString(8)}): nothing in it was trusted`,
    );
    return undefined;
  }
  const read = async (name: string, maxBytes: number): Promise<Buffer | undefined> => {
    const path = join(dir, name);
    const stats = await lstat(path).catch(() => undefined);
    if (!stats) return undefined;
    if (!stats.isFile() || unsafeMode(stats)) {
      notes.push(`${path} is not a private regular file: not trusted`);
      return undefined;
    }
    if (stats.size > maxBytes) {
      notes.push(`${path} is ${stats.size} bytes, more than a cache file of its kind can be: not trusted`);
      return undefined;
    }
    return readFile(path);
  };
  const [metaBytes, bundle] = await Promise.all([
    read('meta.json', META_MAX_BYTES),
    read('bundle.tar.gz', DEFAULT_BUNDLE_LIMITS.maxCompressedBytes),
  ]);
  if (!metaBytes || !bundle) return undefined;
  let meta: CacheMeta | undefined;
  try {
    // The cache is input like any other: read by the untrusted-JSON reader, never JSON.parse.
    const parsed = cacheMetaSchema.safeParse(parseUntrustedJson(metaBytes, META_MAX_BYTES));
    if (parsed.success && parsed.data.package_id === packageId) meta = parsed.data;
  } catch {
    // reported below
  }
  if (!meta) notes.push(`${join(dir, 'meta.json')} is damaged or not for package ${packageId}: not trusted`);
  return meta && { meta, bundle };
}

export interface BundlePullContext {
  env: NodeJS.ProcessEnv;
  transport?: TransportDeps;
}

export async function runBundlePull(
  options: BundlePullOptions,
  context: BundlePullContext,
): Promise<BundlePullResult> {
  const dir = resolve(options.dir, options.packageId);
  const bundlePath = join(dir, 'bundle.tar.gz');
  const publicKeyPath = join(dir, 'public-key.pem');
  const client = await ServiceClient.fromOptions(options.client, context.env, context.transport);
  try {
    // The key first, every time: a rotated key must not leave an old bundle trusted.
    const publicKeyPem = await client.publicKeyPem();
    const verify = (bytes: Uint8Array): Promise<VerifiedBundle> =>
      readVerifiedBundle(bytes, { publicKey: { pem: publicKeyPem }, expectedPackageId: options.packageId });

    const notes: string[] = [];
    const cached = await readCache(dir, options.packageId, notes);
    let verified: VerifiedBundle | undefined;
    let bytes: Buffer | undefined;
    let etag: string | undefined;
    if (cached?.meta.etag && cached.meta.base_url === client.baseUrl) {
      const download = await client.bundle(options.packageId, cached.meta.etag);
      if (download.status === 'not-modified') {
        // The service confirmed the ETag, so the revision, as current: the cached bytes must be exactly
        // that signed revision. Anything else (tampered, or an older bundle put back) is downloaded again.
        verified = await reuseCached(cached, etagRevision(cached.meta.etag), verify, notes);
        if (verified) etag = cached.meta.etag;
      } else {
        ({ bytes, etag } = download);
        verified = await verify(bytes);
      }
    }
    const fromCache = verified !== undefined && bytes === undefined;
    if (!verified) {
      const download = await client.bundle(options.packageId);
      if (download.status !== 'downloaded') throw new Error('unreachable: unconditional GET answered 304');
      ({ bytes, etag } = download);
      verified = await verify(bytes);
    }
    if (etag !== undefined && etagRevision(etag) !== verified.revision) {
      // Without an ETag that names the revision, a 304 could not be checked: fetch in full next time.
      notes.push(
        `the service's ETag ${etag} does not name the bundle's signed revision ${verified.revision}; it is not kept, so the next pull downloads the bundle again`,
      );
      etag = undefined;
    }

    await makePrivateDir(dir);
    if (bytes) await writeAtomic(bundlePath, bytes);
    else await chmod(bundlePath, FILE_MODE);
    const oldKey = await readFile(publicKeyPath, 'utf8').catch(() => undefined);
    if (oldKey !== undefined && oldKey !== publicKeyPem) {
      notes.push(`${publicKeyPath} differed from the service's public key (rotated, or altered): replaced`);
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
      ...(verified.account ? { account: verified.account } : {}),
      fromCache,
      cacheNotes: notes,
    };
  } finally {
    await client.close();
  }
}

/** The cached bundle, if it verifies and carries the revision the service just confirmed; else a note why not. */
async function reuseCached(
  cached: { meta: CacheMeta; bundle: Buffer },
  confirmed: string,
  verify: (bytes: Uint8Array) => Promise<VerifiedBundle>,
  notes: string[],
): Promise<VerifiedBundle | undefined> {
  let verified: VerifiedBundle;
  try {
    verified = await verify(cached.bundle);
  } catch (error) {
    if (!isTfgateError(error)) throw error;
    notes.push(`the cached bundle does not verify (${error.message}): downloaded again`);
    return undefined;
  }
  if (verified.revision !== confirmed) {
    notes.push(
      `the cached bundle is revision ${verified.revision}, but the service confirmed revision ${confirmed} as current (an older bundle was put back in the cache?): downloaded again`,
    );
    return undefined;
  }
  if (cached.meta.revision !== verified.revision) {
    notes.push(
      `meta.json named revision ${cached.meta.revision}, not the bundle's ${verified.revision}: rewritten`,
    );
  }
  return verified;
}

/** Warnings for stderr: what in the cache was not trusted (and was downloaded again). */
export function describeCacheNotes(result: BundlePullResult): string {
  return result.cacheNotes.map((note) => `tfgate: warning: not trusted from the cache: ${note}\n`).join('');
}

/** Human summary for stdout: the paths, and the command that uses them with no service call. */
export function describeBundlePull(result: BundlePullResult): string {
  return [
    `${result.fromCache ? 'cached (not modified)' : 'pulled'}: package ${result.packageId}${result.account ? ` of account ${result.account}` : ''}, revision ${result.revision}${result.keyId ? `, key id ${result.keyId}` : ''}`,
    `bundle:     ${result.bundlePath}`,
    `public key: ${result.publicKeyPath}`,
    `use: tfgate check --bundle ${result.bundlePath} --public-key ${result.publicKeyPath} --package ${result.packageId}${result.account ? ` --account ${result.account}` : ''} --plan-file <planfile>`,
    '',
  ].join('\n');
}
