// The client's settings, normalized once from flags and environment: the key comes from the environment only.
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import { UsageError } from '../errors/index.js';
import { plainIssueMessage } from '../errors/options.js';
import * as z from '../schemas/zod.js';

/** Retries after the first attempt: --retries and TFGATE_RETRIES alike. */
const retriesSchema = z.coerce.number().check(z.int(), z.gte(0), z.lte(10));

/** The largest number of milliseconds a TFGATE_*_MS variable takes: a day, well within Node's timers. */
const MAX_ENV_MS = 86_400_000;

/** What the command line may set. There is deliberately no API key flag: a flag would land in shell history and ps. */
export const clientFlagsSchema = z.object({
  baseUrl: z.optional(z.string()),
  caFile: z.optional(z.string()),
  /**
   * Seconds to wait for response headers, and between body chunks: from a millisecond (less would round to
   * 0 ms, which undici reads as no limit) to a day, as the TFGATE_*_MS variables.
   */
  timeout: z.optional(
    z.coerce
      .number()
      .check(
        z.gte(0.001, 'must be at least 0.001 (a millisecond): tfgate never waits for ever'),
        z.lte(MAX_ENV_MS / 1000, `must be at most ${MAX_ENV_MS / 1000} (a day)`),
      ),
  ),
  /** Retries after the first attempt. */
  retries: z.optional(retriesSchema),
});
export type ClientFlags = z.input<typeof clientFlagsSchema>;

/** How the client's options are written on the command line, for usage errors. */
export const CLIENT_FLAG_NAMES: Readonly<Record<string, string>> = {
  'client.baseUrl': '--base-url',
  'client.caFile': '--ca-file',
  'client.timeout': '--timeout',
  'client.retries': '--retries',
};

export interface ClientConfig {
  /** Without a trailing slash, e.g. https://tfgate.example.com */
  baseUrl: string;
  apiKey: string;
  /** Trusted CAs: the system roots plus --ca-file / NODE_EXTRA_CA_CERTS, or undefined for Node's defaults. */
  ca?: string[];
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Attempts in all, first one included. */
  maxAttempts: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /** Proxy settings read from the environment given to resolveClientConfig (not process.env at request time). */
  proxy: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

export const DEFAULT_TIMEOUTS = { connectMs: 10_000, headersMs: 300_000, bodyMs: 60_000 } as const;
export const DEFAULT_RETRY = { attempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 } as const;

const WHOLE_MS = 'must be a whole number of milliseconds, 1 or more';

/** A TFGATE_*_MS variable: a whole number of milliseconds from 1 to a day. */
const envMillisecondsSchema = z.coerce
  .number({ error: WHOLE_MS })
  .check(z.int(WHOLE_MS), z.gte(1, WHOLE_MS), z.lte(MAX_ENV_MS, `must be at most ${MAX_ENV_MS} (a day)`));

/**
 * A time limit (a timeout) or a wait (a retry delay) from the environment, in milliseconds. 0 is refused:
 * as a timeout undici reads it as no limit at all, and a gate must never wait for ever; fractions were
 * taken as given. Unset or empty: the default.
 */
function envMilliseconds(
  env: NodeJS.ProcessEnv,
  name: string,
  kind: 'timeout' | 'delay',
  fallback: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const parsed = envMillisecondsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(
      'invalid_environment',
      `${name}=${JSON.stringify(raw)}: ${parsed.error.issues[0]?.message ?? WHOLE_MS}`,
      {
        hint:
          `unset ${name} (default ${fallback}) or give it a whole number of milliseconds from 1 to ${MAX_ENV_MS}` +
          (kind === 'timeout' ? '; there is no "no limit": tfgate never waits for ever' : ''),
      },
    );
  }
  return parsed.data;
}

/** TFGATE_RETRIES, held to --retries' bounds: a whole number from 0 to 10. */
function envRetries(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.TFGATE_RETRIES;
  if (raw === undefined || raw === '') return undefined;
  const parsed = retriesSchema.safeParse(raw, { error: plainIssueMessage, reportInput: true });
  if (!parsed.success) {
    throw new UsageError(
      'invalid_environment',
      `TFGATE_RETRIES=${JSON.stringify(raw)}: ${parsed.error.issues[0]?.message ?? 'is not valid'}`,
      { hint: 'unset TFGATE_RETRIES or give it a whole number of retries from 0 to 10, as --retries takes' },
    );
  }
  return parsed.data;
}

export function parseBaseUrl(raw: string | undefined, source: string, env: NodeJS.ProcessEnv): string {
  if (raw === undefined || raw.trim() === '') {
    throw new UsageError(
      'missing_base_url',
      'no service URL: the remote route needs the tfgate service address',
      {
        hint: 'pass --base-url https://tfgate.example.com or set TFGATE_BASE_URL',
      },
    );
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError('invalid_base_url', `${source} is not a URL: ${JSON.stringify(raw)}`, {
      hint: 'give the service address with its scheme, e.g. https://tfgate.example.com',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError('invalid_base_url', `${source} must be an http or https URL, not ${url.protocol}`, {
      hint: 'e.g. https://tfgate.example.com',
    });
  }
  refuseCleartext(url, source, env);
  if (url.username || url.password) {
    // Never echo the URL here: it holds a credential.
    throw new UsageError('invalid_base_url', `${source} contains a user name or password`, {
      hint: 'remove the credentials from the URL; the API key goes in TFGATE_API_KEY',
    });
  }
  if (url.search || url.hash) {
    throw new UsageError(
      'invalid_base_url',
      `${source} must not have a query or fragment: ${url.origin}${url.pathname}`,
      {
        hint: 'give only the service address, e.g. https://tfgate.example.com',
      },
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** Hosts a cleartext request to never leaves the machine: loopback names and addresses. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Plain http to another machine is refused unless TFGATE_ALLOW_HTTP=1 says the network is encrypted
 * (a service mesh, a VPN): the API key would cross it readable, and the bundle and the public key that
 * verifies it could both be replaced on the way, so the signature would prove nothing.
 */
function refuseCleartext(url: URL, source: string, env: NodeJS.ProcessEnv): void {
  if (url.protocol !== 'http:' || isLoopback(url.hostname)) return;
  if (env.TFGATE_ALLOW_HTTP === '1') return;
  throw new UsageError(
    'insecure_base_url',
    `${source} is plain http to ${url.host}: the API key would cross the network unencrypted, and what the service answers (a gate decision, a bundle, the public key) could be altered on the way`,
    {
      hint: `use https://${url.host}${url.pathname === '/' ? '' : url.pathname}; only where the network itself is encrypted (a service mesh, a VPN) set TFGATE_ALLOW_HTTP=1. Loopback (127.0.0.1, localhost) needs neither`,
    },
  );
}

async function readCa(path: string, source: string): Promise<string> {
  try {
    const pem = await readFile(path, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new UsageError('invalid_ca_file', `${source} (${path}) holds no PEM certificate`, {
        hint: 'give a PEM file with one or more "-----BEGIN CERTIFICATE-----" blocks',
      });
    }
    return pem;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError('invalid_ca_file', `cannot read ${source} (${path}): ${(error as Error).message}`, {
      hint: 'check the path of the CA bundle',
      cause: error,
    });
  }
}

/** Flags and environment -> one validated config. Throws a UsageError (exit 1) saying what to fix. */
export async function resolveClientConfig(
  flags: ClientFlags = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClientConfig> {
  // Worded as the CLI words it (the library's callers pass the same options): never the schema library's words.
  const parsed = clientFlagsSchema.safeParse(flags, { error: plainIssueMessage });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = CLIENT_FLAG_NAMES[`client.${String(issue?.path[0])}`] ?? 'an option';
    throw new UsageError('invalid_option', `${flag}: ${issue?.message ?? 'is not valid'}`);
  }
  const f = parsed.data;
  const baseUrl = parseBaseUrl(
    f.baseUrl ?? env.TFGATE_BASE_URL,
    f.baseUrl ? '--base-url' : 'TFGATE_BASE_URL',
    env,
  );

  const apiKey = env.TFGATE_API_KEY?.trim();
  if (!apiKey) {
    throw new UsageError('missing_api_key', 'TFGATE_API_KEY is not set: the service needs an API key', {
      hint: "put the key in your pipeline's secret store and expose it as TFGATE_API_KEY (in GitHub Actions: env TFGATE_API_KEY from secrets.TFGATE_API_KEY); tfgate never takes it from a flag",
    });
  }
  // A header value cannot hold control characters; say so without printing the key.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: detecting them is the point
  if (/[\u0000-\u001f\u007f]/.test(apiKey)) {
    throw new UsageError('invalid_api_key', 'TFGATE_API_KEY contains a control character (a newline?)', {
      hint: 'store the key without a trailing newline',
    });
  }

  const extra: string[] = [];
  if (f.caFile) extra.push(await readCa(f.caFile, '--ca-file'));
  if (env.NODE_EXTRA_CA_CERTS) extra.push(await readCa(env.NODE_EXTRA_CA_CERTS, 'NODE_EXTRA_CA_CERTS'));

  const timeoutMs = f.timeout === undefined ? undefined : Math.round(f.timeout * 1000);
  const retries = f.retries ?? envRetries(env);
  const proxyEnv = (lower: string, upper: string) => env[lower] ?? env[upper];
  const proxy: ClientConfig['proxy'] = {};
  const httpProxy = proxyEnv('http_proxy', 'HTTP_PROXY');
  const httpsProxy = proxyEnv('https_proxy', 'HTTPS_PROXY');
  const noProxy = proxyEnv('no_proxy', 'NO_PROXY');
  if (httpProxy) proxy.httpProxy = httpProxy;
  if (httpsProxy) proxy.httpsProxy = httpsProxy;
  if (noProxy) proxy.noProxy = noProxy;

  return {
    baseUrl,
    apiKey,
    // Passing `ca` replaces Node's store, so the system roots go first.
    ...(extra.length > 0 ? { ca: [...rootCertificates, ...extra] } : {}),
    connectTimeoutMs: envMilliseconds(
      env,
      'TFGATE_CONNECT_TIMEOUT_MS',
      'timeout',
      DEFAULT_TIMEOUTS.connectMs,
    ),
    // --timeout wins over both variables, as --retries over TFGATE_RETRIES.
    headersTimeoutMs:
      timeoutMs ?? envMilliseconds(env, 'TFGATE_HEADERS_TIMEOUT_MS', 'timeout', DEFAULT_TIMEOUTS.headersMs),
    bodyTimeoutMs:
      timeoutMs ?? envMilliseconds(env, 'TFGATE_BODY_TIMEOUT_MS', 'timeout', DEFAULT_TIMEOUTS.bodyMs),
    maxAttempts: retries === undefined ? DEFAULT_RETRY.attempts : retries + 1,
    retryBaseDelayMs: envMilliseconds(env, 'TFGATE_RETRY_BASE_DELAY_MS', 'delay', DEFAULT_RETRY.baseDelayMs),
    retryMaxDelayMs: envMilliseconds(env, 'TFGATE_RETRY_MAX_DELAY_MS', 'delay', DEFAULT_RETRY.maxDelayMs),
    proxy,
  };
}
