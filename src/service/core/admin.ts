// Administration: accounts, plans and API keys (scope `admin`), plus the bootstrap key.
import { accountNotFound } from '../store/accounts.js';
import type { Store } from '../store/index.js';
import { type AccountPlan, type Principal, SCOPES, type Scope } from '../types.js';
import { generateApiKey, generateKeyId, hashApiKey } from './api-keys.js';
import type { ServiceContext } from './context.js';
import { ServiceError } from './errors.js';

/**
 * The account that runs the service: the one TFGATE_BOOTSTRAP_API_KEY creates. Its admin keys manage every
 * account, plans included; another account's admin key manages that account's keys alone, as a key of it
 * reaches only its packages (another account is "not found" to it, as another account's package is).
 */
export const OPERATOR_ACCOUNT = 'default';

function operatorOnly(actor: Principal, what: string): void {
  if (actor.account === OPERATOR_ACCOUNT) return;
  throw new ServiceError(
    403,
    'operator_only',
    `${what} is for an admin key of the operator account "${OPERATOR_ACCOUNT}"; this key is of account "${actor.account}"`,
  );
}

function ownAccount(actor: Principal, account: string): void {
  if (actor.account !== OPERATOR_ACCOUNT && actor.account !== account) throw accountNotFound(account);
}

/** On a first start (no key at all), TFGATE_BOOTSTRAP_API_KEY becomes the `default` account's admin key. */
export async function bootstrap(store: Store, bootstrapKey: string | undefined): Promise<boolean> {
  if (!bootstrapKey) return false;
  return store.apiKeys.bootstrap({
    id: generateKeyId(),
    name: 'bootstrap',
    hash: hashApiKey(bootstrapKey),
    scopes: [...SCOPES],
  });
}

export function createAccount(ctx: ServiceContext, actor: Principal, name: string, plan: AccountPlan) {
  operatorOnly(actor, 'creating an account');
  return ctx.store.accounts.create(name, plan, actor);
}

export function updateAccountPlan(ctx: ServiceContext, actor: Principal, name: string, plan: AccountPlan) {
  operatorOnly(actor, "changing an account's plan");
  return ctx.store.accounts.updatePlan(name, plan, actor);
}

export async function createApiKey(
  ctx: ServiceContext,
  actor: Principal,
  account: string,
  name: string,
  scopes: Scope[],
): Promise<{ id: string; name: string; account: string; scopes: Scope[]; key: string }> {
  ownAccount(actor, account);
  const key = generateApiKey();
  const id = generateKeyId();
  const unique = [...new Set(scopes)];
  await ctx.store.apiKeys.create(account, { id, name, hash: hashApiKey(key), scopes: unique }, actor);
  return { id, name, account, scopes: unique, key };
}

/** The revocation as the admin API answers it: revoked now, or already (with when). */
export async function revokeApiKey(ctx: ServiceContext, actor: Principal, id: string) {
  const revoked = await ctx.store.apiKeys.revoke(
    id,
    actor,
    actor.account === OPERATOR_ACCOUNT ? undefined : actor.account,
  );
  return {
    id: revoked.id,
    account: revoked.account,
    revoked_at: revoked.revokedAt,
    already_revoked: revoked.alreadyRevoked,
  };
}

/** The account's keys as the admin API answers them: ids, names, scopes, dates; never a key. */
export async function listApiKeys(ctx: ServiceContext, actor: Principal, account: string) {
  ownAccount(actor, account);
  const keys = await ctx.store.apiKeys.list(account);
  return {
    account,
    api_keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      scopes: k.scopes,
      created_at: k.createdAt,
      revoked_at: k.revokedAt,
    })),
  };
}
