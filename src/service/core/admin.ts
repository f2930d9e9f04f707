// Administration: accounts, plans and API keys (scope `admin`), plus the bootstrap key.
import type { Store } from '../store/index.js';
import { type AccountPlan, type Principal, SCOPES, type Scope } from '../types.js';
import { generateApiKey, generateKeyId, hashApiKey } from './api-keys.js';
import type { ServiceContext } from './context.js';

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
  return ctx.store.accounts.create(name, plan, actor);
}

export function updateAccountPlan(ctx: ServiceContext, actor: Principal, name: string, plan: AccountPlan) {
  return ctx.store.accounts.updatePlan(name, plan, actor);
}

export async function createApiKey(
  ctx: ServiceContext,
  actor: Principal,
  account: string,
  name: string,
  scopes: Scope[],
): Promise<{ id: string; name: string; account: string; scopes: Scope[]; key: string }> {
  const key = generateApiKey();
  const id = generateKeyId();
  const unique = [...new Set(scopes)];
  await ctx.store.apiKeys.create(account, { id, name, hash: hashApiKey(key), scopes: unique }, actor);
  return { id, name, account, scopes: unique, key };
}

export async function revokeApiKey(ctx: ServiceContext, actor: Principal, id: string): Promise<void> {
  await ctx.store.apiKeys.revoke(id, actor);
}

/** The account's keys as the admin API answers them: ids, names, scopes, dates; never a key. */
export async function listApiKeys(ctx: ServiceContext, account: string) {
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
