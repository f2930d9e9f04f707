// What the management commands share: one client per command, and the service's refusals (404/409/403)
// said in plain words with what to run next. Each command lists the refusals it can meet.
import { type ManagementCall, ServiceClient } from '../client/index.js';
import { isTfgateError, UsageError } from '../errors/index.js';
import { serviceConnectionSchema } from '../options/common.js';
import type * as z from '../schemas/zod.js';

export { serviceConnectionSchema };
export type ServiceConnection = z.output<typeof serviceConnectionSchema>;

export interface ManagementContext {
  env: NodeJS.ProcessEnv;
}

/** A refusal the command knows: HTTP status, optionally the contract's error code, and what to say. */
export interface Refusal {
  status: number;
  serviceCode?: string;
  message: string;
  hint: string;
}

/** Open a client for the connection, run `work`, close it. */
export async function withService<T>(
  connection: ServiceConnection,
  context: ManagementContext,
  work: (client: ServiceClient) => Promise<T>,
): Promise<T> {
  const client = await ServiceClient.fromOptions(
    { baseUrl: connection.baseUrl, caFile: connection.caFile },
    context.env,
  );
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** A management call whose known refusals become one plain UsageError (exit 1); others keep the client's error. */
export async function manage<S extends z.ZodMiniType>(
  client: ServiceClient,
  call: ManagementCall<S>,
  refusals: readonly Refusal[],
): Promise<z.output<S>> {
  try {
    return await client.call(call);
  } catch (error) {
    if (!isTfgateError(error)) throw error;
    const status = error.details?.status;
    const serviceCode = error.details?.service_code;
    const known = refusals.find(
      (r) => r.status === status && (r.serviceCode === undefined || r.serviceCode === serviceCode),
    );
    if (!known) throw error;
    throw new UsageError(typeof serviceCode === 'string' ? serviceCode : `http_${status}`, known.message, {
      hint: known.hint,
      cause: error,
      details: error.details,
    });
  }
}

/** One management call on a client of its own. */
export function callService<S extends z.ZodMiniType>(
  connection: ServiceConnection,
  context: ManagementContext,
  call: ManagementCall<S>,
  refusals: readonly Refusal[],
): Promise<z.output<S>> {
  return withService(connection, context, (client) => manage(client, call, refusals));
}

/** The refusals every package call can meet: no such package, and a key without the scope. */
export function packageRefusals(packageId: string, scope: string): Refusal[] {
  return [
    {
      status: 404,
      serviceCode: 'package_not_found',
      message: `package ${packageId} was not found on the service`,
      hint: `check --package and --base-url; create the package with: tfgate design push <design.yaml>${packageId ? ` --package ${packageId}` : ''}. A package of another account is not visible to this key`,
    },
    {
      status: 403,
      message: `the API key in TFGATE_API_KEY may not do this: it needs the ${scope} scope`,
      hint: `an admin creates a key with it: tfgate keys create --account <account> --name <name> --scopes ${scope}`,
    },
  ];
}
