// `tfgate keys create`: an API key through the admin API. The key is returned once; the caller prints it.
import { ServiceClient } from '../client/index.js';
import { serviceConnectionSchema } from '../options/common.js';
import { API_KEY_SCOPES, createdApiKeySchema } from '../schemas/contract.js';
import * as z from '../schemas/zod.js';

export const keysCreateOptionsSchema = z.extend(serviceConnectionSchema, {
  account: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1), z.maxLength(100)),
  scopes: z.array(z.enum(API_KEY_SCOPES)).check(z.minLength(1)),
});
export type KeysCreateOptions = z.output<typeof keysCreateOptionsSchema>;

/** The created key as the contract has it; `account` is the asked one when the service leaves it out. */
export interface CreatedKey {
  id: string;
  name: string;
  account: string;
  scopes: string[];
  key: string;
}

export async function keysCreate(
  options: KeysCreateOptions,
  context: { env: NodeJS.ProcessEnv },
): Promise<CreatedKey> {
  const client = await ServiceClient.fromOptions(
    { baseUrl: options.baseUrl, caFile: options.caFile },
    context.env,
  );
  try {
    const created = await client.call({
      request: {
        operation: 'API key creation',
        method: 'POST',
        path: `/v1/admin/accounts/${encodeURIComponent(options.account)}/api-keys`,
        // Not sent twice: a retry after a lost answer would create a second key.
        retry: false,
      },
      json: { name: options.name, scopes: options.scopes },
      what: 'creating the API key',
      status: 201,
      schema: createdApiKeySchema,
    });
    return { ...created, account: created.account ?? options.account };
  } finally {
    await client.close();
  }
}
