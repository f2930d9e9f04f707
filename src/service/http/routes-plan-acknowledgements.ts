// Plan acknowledgements (issue 12): waive one plan finding, one rule on one address, with a reason and an
// optional expiry; list them; revoke one. Every write is audited.
import {
  acknowledgePlanFinding,
  listPlanAcknowledgements,
  revokePlanAcknowledgement,
} from '../core/plan-acknowledgements.js';
import { PACKAGE_PATH } from './paths.js';
import { defineRoute, type Route } from './router.js';
import * as s from './schemas.js';

const PKG = PACKAGE_PATH;
const access = { scope: 'compliance:write', pkg: 'existing' } as const;

export const PLAN_ACKNOWLEDGEMENT_ROUTES: readonly Route[] = [
  defineRoute({
    method: 'POST',
    path: `${PKG}/plan-acknowledgements`,
    operationId: 'acknowledgePlanFinding',
    summary:
      'Acknowledge a plan finding: one rule on one address (exact), with a reason and an optional expiry. The evaluation and the bundle report it acknowledged and do not block on it until it expires. Replaces the acknowledgement that held for the same finding.',
    tag: 'management',
    access,
    body: { kind: 'json', schema: s.planAcknowledgementRequestSchema },
    responses: { 201: { description: 'recorded', schema: s.planAcknowledgementSchema } },
    handler: async ({ ctx, principal, pkg, body }) => ({
      status: 201,
      json: await acknowledgePlanFinding(ctx, principal, pkg, body),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: `${PKG}/plan-acknowledgements`,
    operationId: 'listPlanAcknowledgements',
    summary: "The package's plan acknowledgements not revoked, expired ones included, by finding id",
    tag: 'management',
    access: { scope: 'compliance:read', pkg: 'existing' },
    responses: { 200: { description: 'the acknowledgements', schema: s.planAcknowledgementListSchema } },
    handler: async ({ ctx, pkg }) => ({
      status: 200,
      json: { package_id: pkg.packageId, plan_acknowledgements: await listPlanAcknowledgements(ctx, pkg) },
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: `${PKG}/plan-acknowledgements/{finding_id}`,
    operationId: 'revokePlanAcknowledgement',
    summary: 'Revoke the plan acknowledgement of a finding, at once; audited',
    tag: 'management',
    access,
    responses: { 200: { description: 'the revoked acknowledgement', schema: s.planAcknowledgementSchema } },
    errors: [{ status: 404, codes: ['plan_acknowledgement_not_found'] }],
    handler: async ({ ctx, principal, pkg, params }) => ({
      status: 200,
      json: await revokePlanAcknowledgement(ctx, principal, pkg, params.finding_id),
    }),
  }),
];
