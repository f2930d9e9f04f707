// `tfgate findings list|ack` and `tfgate audit`: a package's drift findings, their acknowledgement, and the audit log.
import { packagePath } from '../client/index.js';
import { PLAN_RULES, type PlanAcknowledgement, type PlanRule } from '../model/index.js';
import { packageIdSchema } from '../options/common.js';
import { findingId } from '../policy/finding-id.js';
import { driftFindingSchema } from '../schemas/contract.js';
import { expiresAtSchema } from '../schemas/expiry.js';
import {
  type AuditRecord,
  auditPageSchema,
  type DriftFinding,
  findingsPageSchema,
  planAcknowledgementRecordSchema,
} from '../schemas/management.js';
import * as z from '../schemas/zod.js';
import {
  callService,
  type ManagementContext,
  manage,
  packageRefusals,
  type Refusal,
  serviceConnectionSchema,
  withService,
} from './management.js';

export const FINDING_STATUSES = ['open', 'acknowledged', 'resolved'] as const;

export const findingsListOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  status: z.optional(z.enum(FINDING_STATUSES)),
});
export type FindingsListOptions = z.output<typeof findingsListOptionsSchema>;

const DURATION_UNITS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `--expires-in`: a whole number of minutes, hours, days or weeks (30d), as milliseconds. */
export const expiresInSchema = z.pipe(
  z.string(),
  z.transform((text: string, ctx) => {
    const match = /^\s*([1-9][0-9]{0,5})\s*([mhdw])\s*$/.exec(text);
    if (!match) {
      ctx.issues.push({
        code: 'custom',
        message: `"${text}" is not a duration; use e.g. 90m, 12h, 30d or 2w`,
        input: text,
      });
      return z.NEVER;
    }
    return Number(match[1]) * DURATION_UNITS[match[2]!]!;
  }),
);

/** --expires-in or --expires-at (not both): when the acknowledgement stops holding. */
const expiryShape = {
  expiresIn: z.optional(expiresInSchema),
  expiresAt: z.optional(expiresAtSchema),
};

function refineExpiry(
  value: { expiresIn?: number | undefined; expiresAt?: string | undefined },
  ctx: z.core.$RefinementCtx,
): void {
  if (value.expiresIn !== undefined && value.expiresAt !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['expiresIn'],
      message: 'give --expires-in or --expires-at, not both',
    });
  }
}

/** The expiry to send: --expires-at as given, or now plus --expires-in. */
export function expiryOf(
  options: { expiresIn?: number | undefined; expiresAt?: string | undefined },
  now = Date.now(),
): string | undefined {
  if (options.expiresAt !== undefined) return options.expiresAt;
  return options.expiresIn === undefined ? undefined : new Date(now + options.expiresIn).toISOString();
}

const reasonSchema = z
  .string()
  .check(z.trim(), z.minLength(1, 'say why this finding may be accepted (it is recorded in the audit log)'));

const findingIdSchema = z
  .string()
  .check(
    z.regex(
      /^f_[0-9a-f]{20}$/,
      'a finding id looks like f_ and 20 hex digits (tfgate findings list shows them)',
    ),
  );

export const findingsAckOptionsSchema = z
  .extend(serviceConnectionSchema, {
    packageId: packageIdSchema,
    findingId: findingIdSchema,
    reason: reasonSchema,
    ...expiryShape,
  })
  .check(z.superRefine(refineExpiry));

/** `--plan-finding <rule>:<address>`: the rule names no colon, so the first colon splits them. */
export const planFindingSchema = z.pipe(
  z.string(),
  z.transform((text: string, ctx) => {
    const colon = text.indexOf(':');
    const rule = text.slice(0, colon);
    const address = text.slice(colon + 1);
    if (colon < 0 || !(PLAN_RULES as readonly string[]).includes(rule) || address === '') {
      ctx.issues.push({
        code: 'custom',
        message: `write <rule>:<address>, with rule one of ${PLAN_RULES.join(', ')} (e.g. capability_dependency_destroyed:aws_db_instance.ledger)`,
        input: text,
      });
      return z.NEVER;
    }
    return { rule: rule as PlanRule, address };
  }),
);

export const planAckOptionsSchema = z
  .extend(serviceConnectionSchema, {
    packageId: packageIdSchema,
    planFinding: planFindingSchema,
    reason: reasonSchema,
    ...expiryShape,
  })
  .check(z.superRefine(refineExpiry));
export type PlanAckOptions = z.output<typeof planAckOptionsSchema>;

export const findingsRevokeOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  findingId: findingIdSchema,
});
export type FindingsRevokeOptions = z.output<typeof findingsRevokeOptionsSchema>;

export const planRevokeOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  planFinding: planFindingSchema,
});
export type PlanRevokeOptions = z.output<typeof planRevokeOptionsSchema>;

export const planAcksListOptionsSchema = z.extend(serviceConnectionSchema, { packageId: packageIdSchema });
export type PlanAcksListOptions = z.output<typeof planAcksListOptionsSchema>;

const planAcknowledgementListSchema = z.object({
  package_id: z.string(),
  plan_acknowledgements: z.array(planAcknowledgementRecordSchema),
});

export type FindingsAckOptions = z.output<typeof findingsAckOptionsSchema>;

/** `--since`: a date or time Date.parse reads, as a Date. */
const sinceSchema = z.pipe(
  z
    .string()
    .check(
      z.refine(
        (s) => !Number.isNaN(Date.parse(s)),
        'must be a date or time such as 2026-11-24 or 2026-11-24T09:00:00Z',
      ),
    ),
  z.transform((s: string) => new Date(Date.parse(s))),
);

export const auditOptionsSchema = z.extend(serviceConnectionSchema, {
  packageId: packageIdSchema,
  /** Only entries at or after this time. */
  since: z.optional(sinceSchema),
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

/** The 404 of a finding id the package does not have, pointing at the list of findings in `status`. */
function findingNotFound(packageId: string, findingId: string, status: 'open' | 'acknowledged'): Refusal {
  return {
    status: 404,
    serviceCode: 'finding_not_found',
    message: `package ${packageId} has no finding ${findingId}`,
    hint: `list its findings with: tfgate findings list --package ${packageId} --status ${status}`,
  };
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
      json: { reason: options.reason, expires_at: expiryOf(options) },
      what: 'the acknowledgement',
      status: 200,
      schema: driftFindingSchema,
    },
    [
      findingNotFound(packageId, findingId, 'open'),
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

/** `tfgate findings ack --plan-finding <rule>:<address>`: waive one plan finding, with a reason and an optional expiry. */
export async function planFindingAck(
  options: PlanAckOptions,
  context: ManagementContext,
): Promise<PlanAcknowledgement> {
  const { packageId, planFinding } = options;
  const acknowledgement = await callService(
    options,
    context,
    {
      request: {
        operation: 'plan finding acknowledgement',
        method: 'POST',
        path: packagePath(packageId, 'plan-acknowledgements'),
        packageId,
      },
      json: { ...planFinding, reason: options.reason, expires_at: expiryOf(options) },
      what: 'the plan acknowledgement',
      status: 201,
      schema: planAcknowledgementRecordSchema,
    },
    packageRefusals(packageId, 'compliance:write'),
  );
  return withoutAbsentExpiry(acknowledgement);
}

/** `tfgate findings revoke <finding-id>`: the drift finding's acknowledgement ends; it is open again at once. */
export async function findingsRevoke(
  options: FindingsRevokeOptions,
  context: ManagementContext,
): Promise<DriftFinding> {
  const { packageId, findingId } = options;
  return callService(
    options,
    context,
    {
      request: {
        operation: 'finding acknowledgement revocation',
        method: 'DELETE',
        path: packagePath(packageId, `findings/${encodeURIComponent(findingId)}/acknowledgement`),
        packageId,
      },
      what: 'the finding',
      status: 200,
      schema: driftFindingSchema,
    },
    [
      findingNotFound(packageId, findingId, 'acknowledged'),
      {
        status: 409,
        serviceCode: 'finding_not_acknowledged',
        message: `finding ${findingId} of package ${packageId} is not acknowledged: there is nothing to revoke`,
        hint: `tfgate findings list --package ${packageId} --status acknowledged lists the acknowledged ones`,
      },
      ...packageRefusals(packageId, 'compliance:write'),
    ],
  );
}

/** `tfgate findings revoke --plan-finding <rule>:<address>`: the acknowledgement stops holding at once. */
export async function planFindingRevoke(
  options: PlanRevokeOptions,
  context: ManagementContext,
): Promise<PlanAcknowledgement> {
  const { packageId, planFinding } = options;
  const id = findingId(packageId, planFinding.rule, planFinding.address);
  const revoked = await callService(
    options,
    context,
    {
      request: {
        operation: 'plan acknowledgement revocation',
        method: 'DELETE',
        path: packagePath(packageId, `plan-acknowledgements/${id}`),
        packageId,
      },
      what: 'the revoked plan acknowledgement',
      status: 200,
      schema: planAcknowledgementRecordSchema,
    },
    [
      {
        status: 404,
        serviceCode: 'plan_acknowledgement_not_found',
        message: `package ${packageId} has no plan acknowledgement of ${planFinding.rule} on ${planFinding.address}`,
        hint: `list them with: tfgate findings plan-acks --package ${packageId}`,
      },
      ...packageRefusals(packageId, 'compliance:write'),
    ],
  );
  return withoutAbsentExpiry(revoked);
}

/** `tfgate findings plan-acks`: the package's plan acknowledgements not revoked, expired ones included. */
export async function planAcksList(
  options: PlanAcksListOptions,
  context: ManagementContext,
): Promise<PlanAcknowledgement[]> {
  const { packageId } = options;
  const page = await callService(
    options,
    context,
    {
      request: {
        operation: 'plan acknowledgements list',
        method: 'GET',
        path: packagePath(packageId, 'plan-acknowledgements'),
        packageId,
      },
      what: 'the plan acknowledgements',
      status: 200,
      schema: planAcknowledgementListSchema,
    },
    packageRefusals(packageId, 'compliance:read'),
  );
  return page.plan_acknowledgements.map(withoutAbsentExpiry);
}

function withoutAbsentExpiry(ack: z.output<typeof planAcknowledgementRecordSchema>): PlanAcknowledgement {
  const { expires_at, ...rest } = ack;
  return expires_at === undefined ? rest : { ...rest, expires_at };
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
