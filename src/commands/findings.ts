// `tfgate findings list|ack` and `tfgate audit`: a package's drift findings, their acknowledgement, and the audit log.
import { z } from 'zod';
import { packagePath } from '../client/index.js';
import { packageIdSchema } from '../options/common.js';
import { driftFindingSchema } from '../schemas/contract.js';
import {
  type AuditRecord,
  auditPageSchema,
  type DriftFinding,
  findingsPageSchema,
} from '../schemas/management.js';
import {
  callService,
  type ManagementContext,
  manage,
  packageRefusals,
  serviceConnectionSchema,
  withService,
} from './management.js';

export const FINDING_STATUSES = ['open', 'acknowledged', 'resolved'] as const;

export const findingsListOptionsSchema = serviceConnectionSchema.extend({
  packageId: packageIdSchema,
  status: z.enum(FINDING_STATUSES).optional(),
});
export type FindingsListOptions = z.output<typeof findingsListOptionsSchema>;

export const findingsAckOptionsSchema = serviceConnectionSchema.extend({
  packageId: packageIdSchema,
  findingId: z
    .string()
    .regex(
      /^f_[0-9a-f]{20}$/,
      'a finding id looks like f_ and 20 hex digits (tfgate findings list shows them)',
    ),
  reason: z.string().trim().min(1, 'say why this finding may be accepted (it is recorded in the audit log)'),
});
export type FindingsAckOptions = z.output<typeof findingsAckOptionsSchema>;

export const auditOptionsSchema = serviceConnectionSchema.extend({
  packageId: packageIdSchema,
  /** Only entries at or after this time. */
  since: z
    .string()
    .refine(
      (s) => !Number.isNaN(Date.parse(s)),
      'must be a date or time such as 2026-11-24 or 2026-11-24T09:00:00Z',
    )
    .transform((s) => new Date(Date.parse(s)))
    .optional(),
});
export type AuditOptions = z.output<typeof auditOptionsSchema>;

export async function findingsList(
  options: FindingsListOptions,
  context: ManagementContext,
): Promise<DriftFinding[]> {
  const { packageId, status } = options;
  return withService(options, context, async (client) => {
    const page = await manage(
      client,
      {
        request: {
          operation: 'findings list',
          method: 'GET',
          path: packagePath(packageId, 'findings'),
          packageId,
          query: { status },
        },
        what: 'the findings list',
        status: 200,
        schema: findingsPageSchema,
      },
      packageRefusals(packageId, 'compliance:read'),
    );
    return page.findings;
  });
}

export async function findingsAck(
  options: FindingsAckOptions,
  context: ManagementContext,
): Promise<DriftFinding> {
  const { packageId, findingId } = options;
  return callService(
    options,
    context,
    {
      request: {
        operation: 'finding acknowledgement',
        method: 'POST',
        path: packagePath(packageId, `findings/${encodeURIComponent(findingId)}/acknowledge`),
        packageId,
      },
      json: { reason: options.reason },
      what: 'the acknowledgement',
      status: 200,
      schema: driftFindingSchema,
    },
    [
      {
        status: 404,
        serviceCode: 'finding_not_found',
        message: `package ${packageId} has no finding ${findingId}`,
        hint: `list its findings with: tfgate findings list --package ${packageId} --status open`,
      },
      {
        status: 409,
        serviceCode: 'finding_resolved',
        message: `finding ${findingId} of package ${packageId} is resolved: there is nothing to acknowledge`,
        hint: `the drift is gone; tfgate findings list --package ${packageId} --status open lists what is still open`,
      },
      ...packageRefusals(packageId, 'compliance:write'),
    ],
  );
}

/** Bounds a hostile service that never says "end": 10,000 pages of 1,000 entries. */
const MAX_AUDIT_PAGES = 10_000;

/** Every audit entry of the package (at or after --since), oldest first, paged through to the end. */
export async function auditList(options: AuditOptions, context: ManagementContext): Promise<AuditRecord[]> {
  const { packageId, since } = options;
  return withService(options, context, async (client) => {
    const entries: AuditRecord[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_AUDIT_PAGES; page++) {
      const answer = await manage(
        client,
        {
          request: {
            operation: 'audit read',
            method: 'GET',
            path: packagePath(packageId, 'audit'),
            packageId,
            query: { limit: '1000', after },
          },
          what: 'the audit log',
          status: 200,
          schema: auditPageSchema,
        },
        packageRefusals(packageId, 'compliance:read'),
      );
      // The log has no time filter: ids grow with time, so entries before --since are skipped here.
      entries.push(
        ...answer.entries.filter((e) => since === undefined || Date.parse(e.at) >= since.getTime()),
      );
      // A next_after that does not move on would page forever: the end, as far as tfgate is concerned.
      if (answer.next_after === null || answer.next_after === after || answer.entries.length === 0)
        return entries;
      after = answer.next_after;
    }
    return entries;
  });
}
