// `tfgate design push|approve|show|diff`: a package's design through the management API.
import { Readable } from 'node:stream';
import { z } from 'zod';
import { packagePath, type ServiceClient } from '../client/index.js';
import { type Design, designSchema, readDesignFile } from '../design/index.js';
import { UsageError } from '../errors/index.js';
import { packageIdSchema } from '../options/common.js';
import { type PackageView, packageViewSchema } from '../schemas/management.js';
import {
  callService,
  type ManagementContext,
  manage,
  packageRefusals,
  serviceConnectionSchema,
  withService,
} from './management.js';

export const designPushOptionsSchema = serviceConnectionSchema.extend({
  file: z.string().min(1),
  /** The design's own package_id when omitted; must agree with it when given. */
  packageId: packageIdSchema.optional(),
});
export type DesignPushOptions = z.output<typeof designPushOptionsSchema>;

export const designApproveOptionsSchema = serviceConnectionSchema.extend({
  packageId: packageIdSchema,
  revision: z.string().min(1).optional(),
});
export type DesignApproveOptions = z.output<typeof designApproveOptionsSchema>;

export const designPackageOptionsSchema = serviceConnectionSchema.extend({
  packageId: packageIdSchema,
  /** diff only: a local design to compare with the service's. */
  file: z.string().min(1).optional(),
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
      { hint: `drop --package, or set package_id: ${packageId} in the file` },
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
  return callService(
    options,
    context,
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
    [
      {
        status: 409,
        serviceCode: 'revision_mismatch',
        message: `package ${packageId}'s design is no longer revision ${revision}: it changed since you looked`,
        hint: `see what changed with tfgate design show --package ${packageId}, then approve the current revision`,
      },
      ...packageRefusals(packageId, 'compliance:write'),
    ],
  );
}

export async function designShow(
  options: DesignPackageOptions,
  context: ManagementContext,
): Promise<PackageView> {
  return withService(options, context, (client) => readPackage(client, options.packageId));
}

function readPackage(client: ServiceClient, packageId: string): Promise<PackageView> {
  return manage(
    client,
    {
      request: { operation: 'package read', method: 'GET', path: packagePath(packageId), packageId },
      what: 'reading the package',
      status: 200,
      schema: packageViewSchema,
    },
    packageRefusals(packageId, 'compliance:read'),
  );
}

/** Kinds and capabilities that one design has and the other lacks; capabilities whose dependencies differ. */
export interface DesignDiff {
  package_id: string;
  /** What is compared with the approved design. */
  proposed: { source: string; revision?: string };
  approved: { revision: string | null };
  identical: boolean;
  kinds: { added: string[]; removed: string[] };
  capabilities: {
    added: string[];
    removed: string[];
    changed: Array<{ name: string; depends_on_added: string[]; depends_on_removed: string[] }>;
  };
  catalog: { added: string[]; removed: string[]; changed: string[] };
}

/**
 * The service keeps one design per package (the approved one, or a newer one awaiting approval) and not the
 * previous approved design, so the diff is a proposed design file against the service's approved design.
 * Without a file, or when the service's design is not approved, there is nothing approved to compare with.
 */
export async function designDiff(
  options: DesignPackageOptions,
  context: ManagementContext,
): Promise<DesignDiff> {
  const local = options.file === undefined ? undefined : await readDesignFile(options.file);
  const view = await withService(options, context, (client) => readPackage(client, options.packageId));
  if (!view.approved) {
    throw new UsageError(
      'not_approved',
      `package ${options.packageId}'s design (revision ${view.revision}) is awaiting approval, and the service keeps no copy of the design approved before it (revision ${view.approved_revision ?? 'none'})`,
      {
        hint: `review it with tfgate design show --package ${options.packageId}, then tfgate design approve --package ${options.packageId} --revision ${view.revision}`,
      },
    );
  }
  if (local === undefined) {
    throw new UsageError(
      'nothing_proposed',
      `package ${options.packageId} has no proposed design: revision ${view.revision} is approved`,
      {
        hint: `compare a design file with it: tfgate design diff --package ${options.packageId} <design.yaml>`,
      },
    );
  }
  if (local.design.package_id !== options.packageId) {
    throw new UsageError(
      'package_mismatch',
      `${options.file} is the design of package ${local.design.package_id}, not ${options.packageId}`,
      { hint: `compare it with --package ${local.design.package_id}` },
    );
  }
  const approved = designSchema.safeParse(view.design);
  if (!approved.success) {
    throw new UsageError(
      'unreadable_design',
      `the service's design of package ${options.packageId} is not a design tfgate can read`,
      {
        hint: 'the service may be a newer version than this tfgate; upgrade tfgate',
      },
    );
  }
  return {
    package_id: options.packageId,
    ...compareDesigns(approved.data, local.design),
    proposed: { source: options.file ?? '' },
    approved: { revision: view.revision },
  };
}

const added = (from: Iterable<string>, to: Iterable<string>) => {
  const before = new Set(from);
  return [...new Set(to)].filter((x) => !before.has(x)).sort();
};

export function compareDesigns(
  approved: Design,
  proposed: Design,
): Omit<DesignDiff, 'package_id' | 'proposed' | 'approved'> {
  const kinds = {
    added: added(approved.sanctioned_kinds, proposed.sanctioned_kinds),
    removed: added(proposed.sanctioned_kinds, approved.sanctioned_kinds),
  };
  const before = new Map(approved.capabilities.map((c) => [c.name, c.depends_on]));
  const after = new Map(proposed.capabilities.map((c) => [c.name, c.depends_on]));
  const changed = [...after]
    .filter(([name]) => before.has(name))
    .map(([name, deps]) => ({
      name,
      depends_on_added: added(before.get(name) ?? [], deps),
      depends_on_removed: added(deps, before.get(name) ?? []),
    }))
    .filter((c) => c.depends_on_added.length + c.depends_on_removed.length > 0)
    .sort((a, b) => a.name.localeCompare(b.name));
  const capabilities = {
    added: added(before.keys(), after.keys()),
    removed: added(after.keys(), before.keys()),
    changed,
  };
  const catalog = {
    added: added(Object.keys(approved.catalog), Object.keys(proposed.catalog)),
    removed: added(Object.keys(proposed.catalog), Object.keys(approved.catalog)),
    changed: Object.keys(proposed.catalog)
      .filter((t) => approved.catalog[t] !== undefined && approved.catalog[t] !== proposed.catalog[t])
      .sort(),
  };
  const identical = [
    kinds.added,
    kinds.removed,
    capabilities.added,
    capabilities.removed,
    changed,
    catalog.added,
    catalog.removed,
    catalog.changed,
  ].every((list) => list.length === 0);
  return { identical, kinds, capabilities, catalog };
}
