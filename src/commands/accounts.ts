// `tfgate accounts create` and `tfgate keys revoke`: the admin API beside `tfgate keys create`.
import { accountViewSchema, apiKeyListSchema, apiKeyRevocationSchema } from '../schemas/management.js';
import * as z from '../schemas/zod.js';
import { callService, type ManagementContext, type Refusal, serviceConnectionSchema } from './management.js';

/** The service's plans, smallest first; the gate, plan evaluation and bundles need large or above. */
export const ACCOUNT_PLAN_NAMES = ['starter', 'team', 'large', 'enterprise'] as const;

export const accountsCreateOptionsSchema = z.extend(serviceConnectionSchema, {
  name: z
    .string()
    .check(
      z.regex(
        /^[a-z0-9][a-z0-9._-]{0,62}$/,
        'an account name is 1-63 of a-z 0-9 . _ - and starts with a letter or digit',
      ),
    ),
  plan: z.enum(ACCOUNT_PLAN_NAMES),
});
export type AccountsCreateOptions = z.output<typeof accountsCreateOptionsSchema>;

export const keysListOptionsSchema = z.extend(serviceConnectionSchema, {
  account: z.string().check(z.minLength(1)),
});
export type KeysListOptions = z.output<typeof keysListOptionsSchema>;

export const keysRevokeOptionsSchema = z.extend(serviceConnectionSchema, {
  keyId: z
    .string()
    .check(
      z.regex(
        /^key_[A-Za-z0-9_-]{12}$/,
        'a key id looks like key_ and 12 letters, digits, _ or - (keys create prints it)',
      ),
    ),
});
export type KeysRevokeOptions = z.output<typeof keysRevokeOptionsSchema>;

const NOT_ADMIN: Refusal = {
  status: 403,
  message: 'the API key in TFGATE_API_KEY is not an admin key',
  hint: 'use a key with the admin scope (the bootstrap key has it)',
};

export async function accountsCreate(
  options: AccountsCreateOptions,
  context: ManagementContext,
): Promise<{ name: string; plan: string }> {
  return callService(
    options,
    context,
    {
      request: { operation: 'account creation', method: 'POST', path: '/v1/admin/accounts', retry: false },
      json: { name: options.name, plan: options.plan },
      what: 'creating the account',
      status: 201,
      schema: accountViewSchema,
    },
    [
      {
        status: 409,
        message: `account ${options.name} already exists`,
        hint: `create its keys with: tfgate keys create --account ${options.name} --name <name> --scopes <scopes>`,
      },
      NOT_ADMIN,
    ],
  );
}

/**
 * As --format json prints it. `already_revoked`: the key was revoked before (at `revoked_at`), so nothing
 * changed; undefined from a service that does not say (it answers 204).
 */
export interface KeyRevocation {
  id: string;
  revoked: true;
  revoked_at?: string;
  already_revoked?: boolean;
}

export async function keysRevoke(
  options: KeysRevokeOptions,
  context: ManagementContext,
): Promise<KeyRevocation> {
  const answer = await callService(
    options,
    context,
    {
      request: {
        operation: 'API key revocation',
        method: 'DELETE',
        path: `/v1/admin/api-keys/${encodeURIComponent(options.keyId)}`,
      },
      what: 'revoking the key',
      // 200 says whether it was revoked before; a service that only revokes answers 204, with no body.
      status: [200, 204],
      schema: z.union([apiKeyRevocationSchema, z.undefined()]),
    },
    [
      {
        status: 404,
        message: `there is no API key ${options.keyId}`,
        hint: 'the id is the one keys create printed (key_…), not the key itself; `tfgate keys list --account <name>` lists them',
      },
      NOT_ADMIN,
    ],
  );
  if (answer === undefined) return { id: options.keyId, revoked: true };
  return {
    id: options.keyId,
    revoked: true,
    revoked_at: answer.revoked_at,
    already_revoked: answer.already_revoked,
  };
}

export async function keysList(options: KeysListOptions, context: ManagementContext) {
  return callService(
    options,
    context,
    {
      request: {
        operation: 'API key list',
        method: 'GET',
        path: `/v1/admin/accounts/${encodeURIComponent(options.account)}/api-keys`,
      },
      what: 'listing the keys',
      status: 200,
      schema: apiKeyListSchema,
    },
    [
      {
        status: 404,
        message: `there is no account ${options.account}`,
        hint: `create it with: tfgate accounts create ${options.account} --plan <plan>`,
      },
      NOT_ADMIN,
    ],
  );
}
