// PUT/GET/DELETE /packages/{id}/state-source: the backend a package's drift checks read its state from.
import { timestampSchema } from '../../schemas/contract.js';
import * as z from '../../schemas/zod.js';
import type { BackendValue } from '../../terraform/backend-state.js';
import * as stateSource from '../core/state-source.js';
import { STATE_BACKEND_TYPES, STATE_FALLBACKS } from '../types.js';
import { PACKAGE_PATH } from './paths.js';
import { defineRoute, type Route } from './router.js';

const PKG = `${PACKAGE_PATH}/state-source` as const;

const MAX_DEPTH = 4;
const settingName = z
  .string()
  .check(z.regex(/^[a-z][a-z0-9_]{0,63}$/, 'a setting name is lower-case letters, digits and underscores'));

/** Scalars, lists and nested blocks, as a backend block in JSON holds them; never null, bounded in size. */
const backendValueSchema: z.ZodMiniType<BackendValue> = z.lazy(() =>
  z.union([
    z.string().check(z.maxLength(4096, 'a setting is at most 4096 characters')),
    z.number(),
    z.boolean(),
    z.array(backendValueSchema).check(z.maxLength(100)),
    z.record(settingName, backendValueSchema),
  ]),
);

/**
 * How deep `value` nests. A loop, not Math.max(...children): past ~120,000 settings in one block the spread
 * overflows the call, which the default 1 MiB body limit keeps out of reach but a raised --max-json-body would not.
 */
function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value))
    deepest = Math.max(deepest, depth(child));
  return 1 + deepest;
}

const settingsSchema = z
  .record(settingName, backendValueSchema)
  .check(z.refine((config) => depth(config) <= MAX_DEPTH, `settings nest at most ${MAX_DEPTH} levels deep`));

const stateSourceRequestSchema = z
  .strictObject({
    type: z
      .enum(STATE_BACKEND_TYPES, { error: () => `must be one of ${STATE_BACKEND_TYPES.join(', ')}` })
      .check(z.describe('the Terraform backend type (`cloud`: the HCP Terraform block)')),
    // Described through the registry: zod/mini's .check(z.describe()) on a default copies its definition
    // and with it one default value ({}), which every request would then share.
    config: z._default(settingsSchema, {}).register(z.globalRegistry, {
      description:
        'the backend block\'s settings without any secret (e.g. {"schema_name": "payments"}); credentials come from the environment of the service',
    }),
    fallback: z._default(z.enum(STATE_FALLBACKS), 'none').register(z.globalRegistry, {
      description:
        'none (default): a failed read fails the check (502 drift_check_failed); pushed: judge the last pushed snapshot instead, and say so in the result',
    }),
  })
  .check(z.meta({ id: 'StateSourceRequest' }));

const stateSourceSchema = z
  .object({
    package_id: z.string(),
    type: z.enum(STATE_BACKEND_TYPES),
    config: z.record(z.string(), z.unknown()),
    fallback: z.enum(STATE_FALLBACKS),
    updated_at: timestampSchema,
    updated_by: z.string().check(z.describe('the name of the key that set it')),
  })
  .check(z.meta({ id: 'StateSource' }));

export const STATE_SOURCE_ROUTES: readonly Route[] = [
  defineRoute({
    method: 'PUT',
    path: PKG,
    operationId: 'putStateSource',
    summary:
      "Name the backend the package's state lives in: drift checks (refresh=true and scheduled) read it now through terraform",
    tag: 'management',
    access: { scope: 'compliance:write', pkg: 'existing' },
    body: { kind: 'json', schema: stateSourceRequestSchema },
    responses: { 200: { description: 'set', schema: stateSourceSchema } },
    errors: [
      { status: 400, codes: ['secret_in_state_source', 'state_backend_not_allowed', 'invalid_parameter'] },
      { status: 403, codes: ['operator_only'] },
    ],
    handler: async ({ ctx, principal, pkg, body }) => ({
      status: 200,
      json: await stateSource.putStateSource(ctx, principal, pkg, body),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: PKG,
    operationId: 'getStateSource',
    summary: "The package's state source (404 state_source_not_set: its checks judge pushed state)",
    tag: 'management',
    access: { scope: 'compliance:read', pkg: 'existing' },
    responses: { 200: { description: 'the state source', schema: stateSourceSchema } },
    errors: [{ status: 404, codes: ['state_source_not_set'] }],
    handler: async ({ ctx, pkg }) => ({ status: 200, json: await stateSource.getStateSource(ctx, pkg) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: PKG,
    operationId: 'deleteStateSource',
    summary: 'Go back to pushed state (tfgate state push); 204 whether or not a source was set',
    tag: 'management',
    access: { scope: 'compliance:write', pkg: 'existing' },
    responses: { 204: { description: 'cleared' } },
    async handler({ ctx, principal, pkg }) {
      await stateSource.clearStateSource(ctx, principal, pkg);
      return { status: 204 };
    },
  }),
];
