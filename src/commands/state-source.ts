// `tfgate state-source set|show|clear`: where a package's state lives, so the service's drift checks read it
// from the backend now instead of judging the last pushed snapshot.
import { packagePath } from '../client/index.js';
import { packageIdSchema } from '../options/common.js';
import { STATE_BACKEND_TYPES, STATE_FALLBACKS, stateSourceViewSchema } from '../schemas/management.js';
import * as z from '../schemas/zod.js';
import {
  callService,
  type ManagementContext,
  packageRefusals,
  type Refusal,
  serviceConnectionSchema,
} from './management.js';

type Setting = string | number | boolean | Setting[] | { [key: string]: Setting };

export type StateSourceView = z.output<typeof stateSourceViewSchema>;

export const stateSourceSetOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  type: z.enum(STATE_BACKEND_TYPES, { error: () => `must be one of ${STATE_BACKEND_TYPES.join(', ')}` }),
  /** `--config key=value` (repeatable) and `--config-json` (nested blocks) merged; `--config` wins. */
  config: z._default(z.record(z.string(), z.custom<Setting>()), {}),
  fallback: z._default(
    z.enum(STATE_FALLBACKS, { error: () => 'must be none (a failed read fails the check) or pushed' }),
    'none',
  ),
});
export type StateSourceSetOptions = z.output<typeof stateSourceSetOptionsSchema>;

export const stateSourcePackageOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
});
export type StateSourcePackageOptions = z.output<typeof stateSourcePackageOptionsSchema>;

const path = (packageId: string) => packagePath(packageId, 'state-source');

function setRefusals(options: StateSourceSetOptions): Refusal[] {
  return [
    {
      status: 400,
      serviceCode: 'secret_in_state_source',
      message: 'the service refused a setting that is a secret',
      hint: 'secrets never go through the API: set the variable the service names (tfgate prints its message above) in the environment of tfgate serve, and leave the setting out',
    },
    {
      status: 400,
      serviceCode: 'state_backend_not_allowed',
      message: `the service does not allow the ${options.type} backend`,
      hint: 'its operator lists the allowed backends with tfgate serve --state-backends (TFGATE_STATE_BACKENDS)',
    },
    ...packageRefusals(options.packageId, 'compliance:write'),
  ];
}

export function stateSourceSet(
  options: StateSourceSetOptions,
  context: ManagementContext,
): Promise<StateSourceView> {
  return callService(
    options,
    context,
    {
      request: {
        operation: 'state source set',
        method: 'PUT',
        path: path(options.packageId),
        packageId: options.packageId,
      },
      json: { type: options.type, config: options.config, fallback: options.fallback },
      what: 'setting the state source',
      status: 200,
      schema: stateSourceViewSchema,
    },
    setRefusals(options),
  );
}

/** The package's state source, or null when its checks judge pushed state. */
export async function stateSourceShow(
  options: StateSourcePackageOptions,
  context: ManagementContext,
): Promise<StateSourceView | null> {
  const notSet = `package ${options.packageId} has no state source`;
  try {
    return await callService(
      options,
      context,
      {
        request: {
          operation: 'state source read',
          method: 'GET',
          path: path(options.packageId),
          packageId: options.packageId,
        },
        what: 'the state source',
        status: 200,
        schema: stateSourceViewSchema,
      },
      [
        { status: 404, serviceCode: 'state_source_not_set', message: notSet, hint: '' },
        ...packageRefusals(options.packageId, 'compliance:read'),
      ],
    );
  } catch (error) {
    if ((error as { code?: unknown }).code === 'state_source_not_set') return null;
    throw error;
  }
}

export async function stateSourceClear(
  options: StateSourcePackageOptions,
  context: ManagementContext,
): Promise<{ package_id: string; cleared: true }> {
  await callService(
    options,
    context,
    {
      request: {
        operation: 'state source clear',
        method: 'DELETE',
        path: path(options.packageId),
        packageId: options.packageId,
      },
      what: 'clearing the state source',
      status: 204,
      schema: z.undefined(),
    },
    packageRefusals(options.packageId, 'compliance:write'),
  );
  return { package_id: options.packageId, cleared: true };
}
