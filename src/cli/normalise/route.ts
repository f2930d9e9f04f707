// Route flags (--package, --bundle, --public-key, ...) and the environment → the route's input, shared by the
// normalisers of check, plan and apply. Validated by routeSchema in the command's own schema.
import type { routeSchema } from '../../commands/route.js';
import { UsageError } from '../../errors/index.js';
import type * as z from '../../schemas/zod.js';
import { accountInput, publicKeyInput } from './shared.js';

/** The route flags as commander hands them over. */
export interface RouteFlags {
  baseUrl?: string;
  caFile?: string;
  bundle?: string;
  publicKey?: string;
  allowUnsignedBundleINSECURE?: boolean;
  package?: string;
  account?: string;
  timeout?: string;
  retries?: string;
}

/** How the user wrote each option path, for usage errors. */
export const ROUTE_FLAG_NAMES: Readonly<Record<string, string>> = {
  'route.bundle': '--bundle',
  'route.publicKey': '--public-key',
  'route.packageId': '--package',
  'route.baseUrl': '--base-url',
  'route.caFile': '--ca-file',
  'route.account': '--account',
};

/** Exactly one route. --package alone is the service; with --bundle it names the package the bundle must be for. */
export function routeInputFromFlags(flags: RouteFlags, env: NodeJS.ProcessEnv): z.input<typeof routeSchema> {
  if (flags.bundle === undefined && flags.package !== undefined) {
    if (flags.account !== undefined) {
      throw new UsageError('account_without_bundle', '--account applies to --bundle only', {
        hint: "the service route needs no account: the service judges with the API key's own account",
      });
    }
    return {
      kind: 'remote',
      packageId: flags.package,
      baseUrl: flags.baseUrl,
      caFile: flags.caFile,
      timeout: flags.timeout,
      retries: flags.retries,
    };
  }
  if (flags.bundle === undefined || flags.baseUrl !== undefined) {
    throw new UsageError(
      'route_required',
      flags.bundle === undefined
        ? 'give exactly one route: --package <id> (the service) or --bundle <bundle.tar.gz> --public-key <pem>'
        : '--bundle and --base-url are two routes: give exactly one',
      {
        hint: 'the service: --package <id> with --base-url or TFGATE_BASE_URL and TFGATE_API_KEY; offline: `tfgate bundle pull`, then --bundle and --public-key',
      },
    );
  }
  for (const [flag, given] of [
    ['--timeout', flags.timeout],
    ['--retries', flags.retries],
  ] as const) {
    if (given !== undefined) {
      throw new UsageError(
        'service_option_without_service',
        `${flag} applies to the service route (--package) only`,
        {
          hint: 'a bundle is evaluated here, with no service call to wait for or retry',
        },
      );
    }
  }
  return {
    kind: 'bundle',
    bundle: flags.bundle,
    ...publicKeyInput(flags, env),
    allowUnsigned: flags.allowUnsignedBundleINSECURE ?? false,
    packageId: flags.package,
    account: accountInput(flags, env),
  };
}
