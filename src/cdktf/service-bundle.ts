// Download a package's signed bundle and the platform public key from the service, for
// ConformanceAspect.fromService. A minimal undici client: two GETs, the contract's error body when it has one.
import { request } from 'undici';
import { NoDecisionError, UsageError } from '../errors/index.js';

export interface ServiceBundleRequest {
  baseUrl: string;
  packageId: string;
  apiKey: string;
  /** Skip the public-key call: the caller pinned the key. */
  fetchPublicKey: boolean;
  timeoutMs: number;
}

const CONFORMANCE_PATH = '/v1/analysis/conformance';

function describeStatus(status: number, body: Buffer): { code: string | undefined; message: string } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.message === 'string') {
      return {
        code: typeof parsed.error.code === 'string' ? parsed.error.code : undefined,
        message: parsed.error.message,
      };
    }
  } catch {
    // Not the contract's error body: decide from the status alone.
  }
  return { code: undefined, message: `HTTP ${status}` };
}

async function get(url: URL, accept: string, options: ServiceBundleRequest, what: string): Promise<Buffer> {
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: 'GET',
      headers: { 'x-api-key': options.apiKey, accept },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  } catch (error) {
    throw new NoDecisionError(
      'service_unreachable',
      `cannot download the ${what} from ${url.origin}: ${(error as Error).message}`,
      {
        cause: error,
        hint: 'check baseUrl and that the service is running; synth cannot be checked without it',
      },
    );
  }
  const body = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode === 200) return body;
  const { code, message } = describeStatus(response.statusCode, body);
  const where = `GET ${url.pathname} answered ${response.statusCode}${code ? ` ${code}` : ''}: ${message}`;
  if (response.statusCode === 401) {
    throw new UsageError('unauthorized', `cannot download the ${what}: ${where}`, {
      hint: 'set TFGATE_API_KEY (or the apiKey option) to a valid key with the compliance:read scope',
    });
  }
  if (response.statusCode === 403 || response.statusCode === 404) {
    throw new UsageError(code ?? 'forbidden', `cannot download the ${what}: ${where}`, {
      hint:
        response.statusCode === 404
          ? `check the package id ${JSON.stringify(options.packageId)} and that the key belongs to its account`
          : 'the key needs the compliance:read scope and an account on the large plan or above',
    });
  }
  throw new NoDecisionError(code ?? 'service_error', `cannot download the ${what}: ${where}`);
}

/** The bundle bytes, and the PEM public key unless the caller pinned one. */
export async function downloadBundle(
  options: ServiceBundleRequest,
): Promise<{ bundle: Buffer; publicKeyPem: Buffer | undefined }> {
  let base: URL;
  try {
    base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  } catch (error) {
    throw new UsageError('invalid_base_url', `baseUrl ${JSON.stringify(options.baseUrl)} is not a URL`, {
      cause: error,
    });
  }
  const root = `${base.pathname.replace(/\/$/, '')}${CONFORMANCE_PATH}`;
  const bundleUrl = new URL(`${root}/packages/${encodeURIComponent(options.packageId)}/bundle`, base);
  const keyUrl = new URL(`${root}/public-key`, base);
  const [bundle, publicKeyPem] = await Promise.all([
    get(
      bundleUrl,
      'application/gzip, application/octet-stream',
      options,
      `bundle of package ${options.packageId}`,
    ),
    options.fetchPublicKey
      ? get(keyUrl, 'application/x-pem-file', options, 'platform public key')
      : undefined,
  ]);
  if (publicKeyPem !== undefined && !publicKeyPem.toString('utf8').includes('-----BEGIN')) {
    throw new NoDecisionError('invalid_public_key', `GET ${keyUrl.pathname} did not return a PEM public key`);
  }
  return { bundle, publicKeyPem };
}
