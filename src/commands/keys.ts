// `tfgate keys create`: an API key through the admin API. The key is returned once; the caller prints it.
import { z } from 'zod';
import { resolveClientConfig } from '../client/index.js';
import { UsageError } from '../errors/index.js';
import { createdApiKeySchema } from '../schemas/contract.js';
import { SCOPES } from '../service/core/types.js';
import { callService } from './service-call.js';

export const keysCreateOptionsSchema = z.object({
  account: z.string().min(1),
  name: z.string().min(1).max(100),
  scopes: z.array(z.enum(SCOPES)).min(1),
  baseUrl: z.string().optional(),
  caFile: z.string().optional(),
});
export type KeysCreateOptions = z.input<typeof keysCreateOptionsSchema>;

/** The created key as the contract has it; `account` is the asked one when the service leaves it out. */
export interface CreatedKey {
  id: string;
  name: string;
  account: string;
  scopes: string[];
  key: string;
}

export async function keysCreate(
  input: KeysCreateOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CreatedKey> {
  const parsed = keysCreateOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError('invalid_option', `invalid --${String(issue.path[0])}: ${issue.message}`, {
      hint: `scopes are: ${SCOPES.join(', ')}`,
    });
  }
  const options = parsed.data;
  const config = await resolveClientConfig({ baseUrl: options.baseUrl, caFile: options.caFile }, env);
  const created = await callService(
    config,
    'POST',
    `/v1/admin/accounts/${encodeURIComponent(options.account)}/api-keys`,
    { json: { name: options.name, scopes: options.scopes } },
    { what: 'creating the API key', status: 201, schema: createdApiKeySchema },
  );
  return { ...created, account: created.account ?? options.account };
}
