// `tfgate design push|approve|show|diff`: a package's design through the management API.
import { Readable } from 'node:stream';
import { type ManagementCall, packagePath, type ServiceClient } from '../client/index.js';
import { compareDesigns, type DesignChanges } from '../design/diff.js';
import { type Design, designSchema, readDesignFile } from '../design/index.js';
import { isTfgateError, type TfgateError, UsageError } from '../errors/index.js';
import { packageIdSchema } from '../options/common.js';
import { designRevisionViewSchema, type PackageView, packageViewSchema } from '../schemas/management.js';
import * as z from '../schemas/zod.js';
import {
  type ManagementContext,
  manage,
  packageRefusals,
  serviceConnectionSchema,
  withService,
} from './management.js';

export const designPushOptionsSchema = z.extend(serviceConnectionSchema, {
  file: z.string().check(z.minLength(1)),
  /** The design's own package_id when omitted; must agree with it when given. */
  packageId: z.optional(packageIdSchema),
});
export type DesignPushOptions = z.output<typeof designPushOptionsSchema>;

export const designApproveOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  revision: z.optional(z.string().check(z.minLength(1))),
});
export type DesignApproveOptions = z.output<typeof designApproveOptionsSchema>;

export const designPackageOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  /** diff only: a local design to compare with the service's. */
  file: z.optional(z.string().check(z.minLength(1))),
});
export type DesignPackageOptions = z.output<typeof designPackageOptionsSchema>;

/** As --format json prints it: the service's names (snake_case), like every other management command. */
export interface DesignPushResult {
  package_id: string;
  revision: string;
  changed: boolean;
  approved: boolean;
  approved_revision: string | null;
}

export async function designPush(
  options: DesignPushOptions,
  context: ManagementContext,
): Promise<DesignPushResult> {
  const { text, design } = await readDesignFile(options.file);
  const packageId = options.packageId ?? design.package_id;
  if (packageId !== design.package_id) {
    throw new UsageError(
      'package_mismatch',
      `${options.file} is the design of package ${design.package_id}, not ${packageId}`,
      { hint: `drop --package (or TFGATE_PACKAGE), or set package_id: ${packageId} in the file` },
    );
  }
  const bytes = Buffer.from(text);
  return withService(options, context, async (client) => {
    const view = await manage(
      client,
      {
        request: {
          operation: 'design push',
          method: 'PUT',
          path: packagePath(packageId),
          packageId,
          headers: { 'content-type': 'application/yaml' },
          body: { open: () => Readable.from([bytes]), reopenable: true, description: options.file },
        },
        what: 'the design push',
        status: [200, 201],
        schema: packageViewSchema,
      },
      [
        {
          status: 400,
          message: `the service refused the design in ${options.file}`,
          hint: 'fix what the service names (the README\'s "The approved design" describes the format), then push again',
        },
        ...packageRefusals(packageId, 'compliance:write'),
      ],
    );
    return {
      package_id: view.package_id,
      revision: view.revision,
      // tfgate's service says `changed` on every PUT; a first push is always a change.
      changed: view.changed ?? true,
      approved: view.approved,
      approved_revision: view.approved_revision,
    };
  });
}

export async function designApprove(
  options: DesignApproveOptions,
  context: ManagementContext,
): Promise<PackageView> {
  const { packageId, revision } = options;
  return withService(options, context, async (client) => {
    try {
      return await manage(
        client,
        {
          request: {
            operation: 'design approval',
            method: 'POST',
            path: packagePath(packageId, 'approve'),
            packageId,
          },
          json: revision === undefined ? {} : { revision },
          what: 'the approval',
          status: 200,
          schema: packageViewSchema,
        },
        packageRefusals(packageId, 'compliance:write'),
      );
    } catch (error) {
      if (
        revision === undefined ||
        !isTfgateError(error) ||
        error.details?.service_code !== 'revision_mismatch'
      )
        throw error;
      throw await notTheCurrentRevision(client, packageId, revision, error);
    }
  });
}

/**
 * `approve --revision <rev>` refused because <rev> is not the current revision: say which it is. One the
 * package never had (a typo, `current`, a revision of another package) is said as that; only a revision the
 * package had before means its design changed since the caller looked.
 */
async function notTheCurrentRevision(
  client: ServiceClient,
  packageId: string,
  revision: string,
  refusal: TfgateError,
): Promise<UsageError> {
  const changed = (now?: string) =>
    new UsageError(
      'revision_mismatch',
      `package ${packageId}'s design is no longer revision ${revision}: it changed since you looked${now ? ` (it is now revision ${now})` : ''}; nothing was approved`,
      {
        hint: `see what changed with tfgate design diff --package ${packageId}, then approve the current revision`,
        cause: refusal,
        details: refusal.details,
      },
    );
  // What the service kept of that revision, and the current one. A service without revisions (or any other
  // failure here) leaves the refusal as it was.
  const [kept, current] = await Promise.all([
    client.call(revisionRead(packageId, revision, 'reading the revision')).then(
      (view) => ({ known: view.revision === revision }),
      (error: unknown) => {
        const code = isTfgateError(error) ? error.details?.service_code : undefined;
        return code === 'revision_not_found' || code === 'invalid_parameter' ? { known: false } : undefined;
      },
    ),
    client.call(packageRead(packageId)).then(
      (view) => view.revision,
      () => undefined,
    ),
  ]);
  if (kept === undefined || kept.known) return changed(current);
  return new UsageError(
    'revision_not_found',
    `${JSON.stringify(revision)} is not a revision of package ${packageId}'s design; nothing was approved`,
    {
      hint: current
        ? `give a revision as tfgate design push printed it; the current one is ${current}: tfgate design approve --package ${packageId} --revision ${current} (tfgate design show --package ${packageId} shows the design)`
        : `give a revision as tfgate design push printed it (tfgate design show --package ${packageId} shows the current one)`,
      cause: refusal,
      details: refusal.details,
    },
  );
}

export async function designShow(
  options: DesignPackageOptions,
  context: ManagementContext,
): Promise<PackageView> {
  return withService(options, context, (client) => readPackage(client, options.packageId));
}

function readPackage(client: ServiceClient, packageId: string): Promise<PackageView> {
  return manage(client, packageRead(packageId), packageRefusals(packageId, 'compliance:read'));
}

/** `GET /packages/{id}`: the package as the service keeps it. */
function packageRead(packageId: string) {
  return {
    request: { operation: 'package read', method: 'GET', path: packagePath(packageId), packageId },
    what: 'reading the package',
    status: 200,
    schema: packageViewSchema,
  } satisfies ManagementCall<typeof packageViewSchema>;
}

/** `GET /packages/{id}/design?revision=…`: one kept revision of the package's design. */
function revisionRead(packageId: string, revision: string, what: string) {
  return {
    request: {
      operation: 'package read',
      method: 'GET',
      path: packagePath(packageId, 'design'),
      packageId,
      query: { revision },
    },
    what,
    status: 200,
    schema: designRevisionViewSchema,
  } satisfies ManagementCall<typeof designRevisionViewSchema>;
}

/** How the proposed design differs from the approved one: kinds, capabilities (and their dependencies), catalog. */
export interface DesignDiff extends DesignChanges {
  package_id: string;
  /** What is compared with the approved design: the service's current revision, or a local file. */
  proposed: { source: string; revision?: string };
  approved: { revision: string };
}

/**
 * Without a file: the package's current (proposed) revision against its approved revision, both as the
 * service kept them. With a file: that file against the approved revision.
 */
export async function designDiff(
  options: DesignPackageOptions,
  context: ManagementContext,
): Promise<DesignDiff> {
  const { packageId } = options;
  const local = options.file === undefined ? undefined : await readDesignFile(options.file);
  if (local !== undefined && local.design.package_id !== packageId) {
    throw new UsageError(
      'package_mismatch',
      `${options.file} is the design of package ${local.design.package_id}, not ${packageId}`,
      { hint: `compare it with --package ${local.design.package_id}` },
    );
  }
  return withService(options, context, async (client) => {
    const approved = await readRevision(client, packageId, 'approved');
    if (local !== undefined) {
      return {
        package_id: packageId,
        ...compareDesigns(approved.design, local.design),
        proposed: { source: options.file ?? '' },
        approved: { revision: approved.revision },
      };
    }
    const current = approved.current ? approved : await readRevision(client, packageId, 'current');
    return {
      package_id: packageId,
      ...compareDesigns(approved.design, current.design),
      proposed: { source: 'the service', revision: current.revision },
      approved: { revision: approved.revision },
    };
  });
}

/** One revision of the package's design as the service kept it, read as a design tfgate understands. */
async function readRevision(
  client: ServiceClient,
  packageId: string,
  revision: 'current' | 'approved',
): Promise<{ revision: string; current: boolean; design: Design }> {
  const view = await manage(client, revisionRead(packageId, revision, `reading the ${revision} design`), [
    {
      status: 404,
      serviceCode: 'revision_not_found',
      message: `package ${packageId} has no ${revision} design to compare with`,
      hint: `see its state with tfgate design show --package ${packageId}; a design is compared once a revision of it is approved (tfgate design approve --package ${packageId})`,
    },
    ...packageRefusals(packageId, 'compliance:read'),
  ]);
  const design = designSchema.safeParse(view.design);
  if (!design.success) {
    throw new UsageError(
      'unreadable_design',
      `the service's ${revision} design of package ${packageId} is not a design tfgate can read`,
      { hint: 'the service may be a newer version than this tfgate; upgrade tfgate' },
    );
  }
  return { revision: view.revision, current: view.current, design: design.data };
}
