// Who decides: a signed bundle, offline (--bundle), or the service (--package). Shared by `tfgate check` and
// the wrapper (plan, apply): the route's options and opening its evaluator.
import type { PlanEvaluator } from '../model/evaluator.js';
import * as z from '../schemas/zod.js';
import { type NamedFile, requireFiles } from './input-files.js';

/** Who decides: a signed bundle, offline (--bundle), or the service (--package). */
export const routeSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('bundle'),
      bundle: z.string().check(z.minLength(1)),
      publicKey: z.optional(z.string().check(z.minLength(1))),
      /** The variable that named the key file (TFGATE_PUBLIC_KEY), for messages about it; absent: --public-key. */
      publicKeyGivenAs: z.optional(z.string().check(z.minLength(1))),
      /** INSECURE opt-in: accept a bundle without .signatures.json (warned about on stderr every time). */
      allowUnsigned: z._default(z.boolean(), false),
      /** Refuse a bundle built for another package. */
      packageId: z.optional(z.string().check(z.minLength(1))),
      /** Refuse a bundle built for another service account (one platform key signs every account's). */
      account: z.optional(z.string().check(z.minLength(1))),
    })
    .check(
      z.refine((r) => r.publicKey !== undefined || r.allowUnsigned, {
        message: 'a bundle is verified with the platform public key: pass --public-key <pem>',
        path: ['publicKey'],
      }),
    ),
  /** The service decides: the plan is streamed to it; the key comes from TFGATE_API_KEY only. */
  z.object({
    kind: z.literal('remote'),
    /** The service validates the id (404 package_not_found); it is URL-encoded into the path. */
    packageId: z.string().check(z.minLength(1)),
    /** Falls back to TFGATE_BASE_URL. */
    baseUrl: z.optional(z.string().check(z.minLength(1))),
    caFile: z.optional(z.string().check(z.minLength(1))),
    /** --timeout and --retries as given: validated with the client's settings (resolveClientConfig). */
    timeout: z.optional(z.string()),
    retries: z.optional(z.string()),
  }),
]);
export type RouteOption = z.output<typeof routeSchema>;

export interface RouteContext {
  stderr: { write(chunk: string): unknown };
  env?: NodeJS.ProcessEnv;
}

const BUNDLE_HINT =
  '`tfgate bundle pull --package <id>` downloads the signed bundle and the platform public key';

/**
 * Everything about the route that can be checked without loading it: the bundle and key files exist; the
 * service has a base URL and TFGATE_API_KEY (and a readable CA file). Run before terraform starts, so a
 * missing setting never comes after a whole plan has printed.
 */
export async function checkRoute(route: RouteOption, env: NodeJS.ProcessEnv): Promise<void> {
  if (route.kind === 'remote') {
    const { resolveClientConfig } = await import('../client/config.js');
    await resolveClientConfig(clientFlags(route), env);
    return;
  }
  await requireFiles(routeFiles(route));
}

/** The files a route reads: the bundle and its key, or the service's CA file. */
export function routeFiles(route: RouteOption): NamedFile[] {
  if (route.kind === 'remote')
    return route.caFile === undefined ? [] : [{ flag: '--ca-file', path: route.caFile }];
  return [
    { flag: '--bundle', path: route.bundle, hint: `check the path; ${BUNDLE_HINT}` },
    ...(route.publicKey === undefined
      ? []
      : [
          {
            flag: route.publicKeyGivenAs ?? '--public-key',
            path: route.publicKey,
            hint: `check the path; ${BUNDLE_HINT}`,
          },
        ]),
  ];
}

/** The service route's connection settings, as the client takes them. */
function clientFlags(route: Extract<RouteOption, { kind: 'remote' }>) {
  return { baseUrl: route.baseUrl, caFile: route.caFile, timeout: route.timeout, retries: route.retries };
}

export async function openEvaluator(route: RouteOption, context: RouteContext): Promise<PlanEvaluator> {
  switch (route.kind) {
    case 'remote': {
      // Loaded on demand: the HTTP client (undici) costs startup time the offline bundle route never needs.
      const { RemoteEvaluator, ServiceClient } = await import('../client/index.js');
      const client = await ServiceClient.fromOptions(clientFlags(route), context.env ?? process.env, {
        notice: (message) => context.stderr.write(`${message}\n`),
      });
      const remote = new RemoteEvaluator(client, route.packageId);
      return {
        description: remote.description,
        evaluate: (source, minSeverity) => remote.evaluate(source, minSeverity),
        close: () => client.close(),
      };
    }
    case 'bundle': {
      // Loaded on demand (opa-wasm, tar): `tfgate apply` loads it while terraform plans.
      const { BundleEvaluator } = await import('../policy/bundle/index.js');
      return BundleEvaluator.open(route.bundle, {
        publicKeyPath: route.publicKey,
        allowUnsigned: route.allowUnsigned,
        expectedPackageId: route.packageId,
        expectedAccount: route.account,
        warn: (message) => context.stderr.write(`${message}\n`),
      });
    }
  }
}
