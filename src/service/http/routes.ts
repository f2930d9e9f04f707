// Every route of the service, as thin adapters over the core functions in ../core.

import { SEVERITIES } from '../../model/index.js';
import * as admin from '../core/admin.js';
import { packageBundle } from '../core/bundle.js';
import { runDriftCheck } from '../core/drift.js';
import type { ServiceError } from '../core/errors.js';
import { evaluatePlanUpload, evaluationBlockedError, pushObservedState } from '../core/evaluate.js';
import { gate, gateBlockedError } from '../core/gate.js';
import * as packages from '../core/packages.js';
import { GATE_MIN_PLAN } from '../types.js';
import { preferredType } from './accept.js';
import { BASE_PATH, PACKAGE_PATH } from './paths.js';
import { BOOLEAN_VALUES, defineRoute, type QueryParam, type Reply, type Route } from './router.js';
import { DESIGN_ROUTES } from './routes-design.js';
import { PLAN_ACKNOWLEDGEMENT_ROUTES } from './routes-plan-acknowledgements.js';
import { RUN_TASK_ROUTES } from './routes-run-task.js';
import { STATE_SOURCE_ROUTES } from './routes-state-source.js';
import * as s from './schemas.js';

export { BASE_PATH } from './paths.js';

const PKG = PACKAGE_PATH;

const minSeverity = {
  description: `severity threshold: ${SEVERITIES.join(' < ')}; open findings at or above it block`,
  values: SEVERITIES,
  default: 'low',
} as const satisfies QueryParam;
const failStatus = {
  description:
    'true: a blocked decision answers 409, so `curl -f` fails; omitted or false: always 200 (advisory)',
  values: BOOLEAN_VALUES,
  default: 'false',
} as const satisfies QueryParam;

const readGated = { scope: 'compliance:read', minPlan: GATE_MIN_PLAN, pkg: 'approved' } as const;
const readPackage = { scope: 'compliance:read', pkg: 'existing' } as const;
const writePackage = { scope: 'compliance:write', pkg: 'existing' } as const;
// Drift is divergence from the approved design: a design awaiting approval is not checked against (its
// findings would resolve or open, and acknowledgements be dropped, by a design no one approved).
const checkApprovedPackage = { scope: 'compliance:write', pkg: 'approved' } as const;
const ADMIN = { tag: 'admin', access: { scope: 'admin' } } as const;

const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  json: body,
  headers,
});
const withError = (error: ServiceError, body: object): Reply => ({
  status: error.status,
  json: { ...body, error: { code: error.code, message: error.message } },
});

function etagMatches(header: string | undefined, revision: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((t) =>
      t
        .trim()
        .replace(/^W\//, '')
        .replace(/^"(.*)"$/, '$1'),
    )
    .includes(revision);
}

export const ROUTES: readonly Route[] = [
  ...DESIGN_ROUTES,
  defineRoute({
    method: 'POST',
    path: `${PKG}/gate`,
    operationId: 'gate',
    summary: 'Gate a release on open drift findings (interface §4.1)',
    tag: 'conformance',
    access: readGated,
    query: {
      fail_status: failStatus,
      min_severity: minSeverity,
      refresh: {
        description: 'true: run a fresh drift check before deciding',
        values: BOOLEAN_VALUES,
        default: 'false',
      },
    },
    responses: {
      200: { description: 'the decision (pass, or block without fail_status)', schema: s.gateResultSchema },
      409: {
        description: 'blocked with fail_status=true: the decision with error code gate_blocked',
        schema: s.gateResultSchema,
      },
    },
    errors: [
      { status: 409, codes: ['gate_blocked', 'observed_state_missing'] },
      { status: 502, codes: ['drift_check_failed', 'state_backend_not_allowed'] },
      { status: 504, codes: ['drift_check_timeout'] },
    ],
    async handler({ ctx, principal, pkg, query }) {
      const { status, result } = await gate(ctx, principal, pkg, {
        failStatus: query.fail_status === 'true',
        minSeverity: query.min_severity,
        refresh: query.refresh === 'true',
      });
      return status === 409 ? withError(gateBlockedError(result), result) : json(200, result);
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${PKG}/evaluate/terraform`,
    operationId: 'evaluateTerraform',
    summary: 'Evaluate a Terraform plan (terraform show -json) against the approved design',
    tag: 'conformance',
    access: readGated,
    query: {
      min_severity: minSeverity,
      fail_status: {
        ...failStatus,
        description: 'true: a blocked evaluation answers 409 evaluation_blocked',
      },
    },
    body: {
      kind: 'stream',
      contentTypes: ['application/json'],
      description: 'the output of terraform show -json <planfile>, streamed',
    },
    responses: {
      200: { description: 'the evaluation', schema: s.evaluationResultSchema },
      409: {
        description: 'blocked with fail_status=true: the evaluation with error code evaluation_blocked',
        schema: s.evaluationResultSchema,
      },
    },
    errors: [{ status: 400, codes: ['invalid_plan'] }],
    async handler({ ctx, principal, pkg, query, body }) {
      const { status, result } = await evaluatePlanUpload(ctx, principal, pkg, body, {
        minSeverity: query.min_severity,
        failStatus: query.fail_status === 'true',
      });
      return status === 409 ? withError(evaluationBlockedError(result), result) : json(200, result);
    },
  }),
  defineRoute({
    method: 'GET',
    path: `${PKG}/bundle`,
    operationId: 'getBundle',
    summary: "The package's signed OPA bundle (gzip tarball); ETag is the bundle revision",
    tag: 'conformance',
    access: readGated,
    responses: {
      200: {
        description: 'the bundle',
        content: { 'application/gzip': 'gzip tarball in OPA bundle format, signed' },
      },
      304: { description: 'If-None-Match named the current revision' },
    },
    async handler({ ctx, pkg, headers: request }) {
      const { revision, bytes } = await packageBundle(ctx, pkg);
      const headers = { ETag: `"${revision}"`, 'X-Bundle-Revision': revision, 'Cache-Control': 'no-cache' };
      if (etagMatches(request['if-none-match'], revision)) return { status: 304, headers };
      return { status: 200, raw: { body: bytes, contentType: 'application/gzip' }, headers };
    },
  }),
  defineRoute({
    method: 'GET',
    path: `${BASE_PATH}/public-key`,
    operationId: 'getPublicKey',
    summary:
      'The platform public key that verifies bundles (JSON, or PEM with Accept: application/x-pem-file)',
    tag: 'conformance',
    access: { scope: 'compliance:read', minPlan: GATE_MIN_PLAN },
    responses: {
      200: {
        description: 'the key',
        schema: s.publicKeySchema,
        content: { 'application/x-pem-file': 'the PEM (SPKI) alone' },
      },
    },
    async handler({ ctx, headers: request }) {
      const key = ctx.platformKey;
      const headers = { 'X-Key-Id': key.keyId, Vary: 'Accept' };
      if (
        preferredType(request.accept, ['application/json', 'application/x-pem-file']) !== 'application/json'
      ) {
        return {
          status: 200,
          raw: { body: key.publicKeyPem, contentType: 'application/x-pem-file' },
          headers,
        };
      }
      return json(200, { key_id: key.keyId, algorithm: 'RS256', public_key: key.publicKeyPem }, headers);
    },
  }),
  defineRoute({
    method: 'PUT',
    path: PKG,
    operationId: 'putPackage',
    summary:
      'Create or update a package with its design document (YAML or JSON); a changed design needs approval again',
    tag: 'management',
    access: { scope: 'compliance:write' },
    body: {
      kind: 'text',
      contentTypes: ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'],
      description: 'the approved design document',
    },
    responses: {
      200: { description: 'updated (or unchanged)', schema: s.packageSchema },
      201: { description: 'created', schema: s.packageSchema },
    },
    errors: [{ status: 400, codes: ['invalid_design'] }],
    async handler({ ctx, principal, params, body }) {
      const { status, view } = await packages.putPackage(ctx, principal, params.package_id, body);
      return json(status, view);
    },
  }),
  defineRoute({
    method: 'GET',
    path: PKG,
    operationId: 'getPackage',
    summary: 'The package: its design, revision and approval',
    tag: 'management',
    access: readPackage,
    responses: { 200: { description: 'the package', schema: s.packageSchema } },
    handler: async ({ pkg }) => json(200, packages.packageView(pkg)),
  }),
  defineRoute({
    method: 'POST',
    path: `${PKG}/approve`,
    operationId: 'approvePackage',
    summary: "Approve the package's current design",
    tag: 'management',
    access: writePackage,
    body: { kind: 'json', schema: s.approveRequestSchema, optional: true },
    responses: { 200: { description: 'approved', schema: s.packageSchema } },
    errors: [{ status: 409, codes: ['revision_mismatch'] }],
    handler: async ({ ctx, principal, pkg, body }) =>
      json(200, await packages.approvePackage(ctx, principal, pkg, body?.revision)),
  }),
  defineRoute({
    method: 'PUT',
    path: `${PKG}/observed-state`,
    operationId: 'putObservedState',
    summary: 'Push the observed state: the output of terraform show -json on the state',
    tag: 'management',
    access: writePackage,
    body: {
      kind: 'stream',
      contentTypes: ['application/json'],
      description: 'terraform show -json (state), streamed',
    },
    responses: { 200: { description: 'stored', schema: s.observedStateResponseSchema } },
    errors: [{ status: 400, codes: ['invalid_state'] }],
    handler: async ({ ctx, principal, pkg, body }) =>
      json(200, await pushObservedState(ctx, principal, pkg, body)),
  }),
  defineRoute({
    method: 'POST',
    path: `${PKG}/drift-checks`,
    operationId: 'runDriftCheck',
    summary: 'Run a drift check now',
    tag: 'management',
    access: checkApprovedPackage,
    responses: { 200: { description: 'the check', schema: s.driftCheckSchema } },
    errors: [
      { status: 409, codes: ['observed_state_missing'] },
      { status: 502, codes: ['drift_check_failed', 'state_backend_not_allowed'] },
      { status: 504, codes: ['drift_check_timeout'] },
    ],
    async handler({ ctx, pkg }) {
      const outcome = await runDriftCheck(ctx, pkg, 'manual');
      return json(200, {
        package_id: pkg.packageId,
        checked_at: outcome.checkedAt,
        detected: outcome.detected,
        opened: outcome.opened,
        reopened: outcome.reopened,
        resolved: outcome.resolved,
        state: outcome.state,
      });
    },
  }),
  defineRoute({
    method: 'GET',
    path: `${PKG}/findings`,
    operationId: 'listFindings',
    summary: 'Drift findings, optionally by status',
    tag: 'management',
    access: readPackage,
    query: {
      status: { description: 'only findings with this status', values: ['open', 'acknowledged', 'resolved'] },
    },
    responses: { 200: { description: 'the findings', schema: s.findingsListSchema } },
    handler: async ({ ctx, pkg, query }) =>
      json(200, { package_id: pkg.packageId, findings: await packages.listFindings(ctx, pkg, query.status) }),
  }),
  defineRoute({
    method: 'POST',
    path: `${PKG}/findings/{finding_id}/acknowledge`,
    operationId: 'acknowledgeFinding',
    summary:
      'Acknowledge a drift finding, with a reason and an optional expiry; recorded for audit. Acknowledged findings never block until the acknowledgement expires.',
    tag: 'management',
    access: writePackage,
    body: { kind: 'json', schema: s.acknowledgeRequestSchema },
    responses: { 200: { description: 'the acknowledged finding', schema: s.driftFindingSchema } },
    errors: [
      { status: 404, codes: ['finding_not_found'] },
      { status: 409, codes: ['finding_resolved'] },
    ],
    handler: async ({ ctx, principal, pkg, params, body }) =>
      json(200, await packages.acknowledgeFinding(ctx, principal, pkg, params.finding_id, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: `${PKG}/findings/{finding_id}/acknowledgement`,
    operationId: 'revokeFindingAcknowledgement',
    summary:
      "Revoke a drift finding's acknowledgement: the finding is open again at once (it blocks when at or above the threshold); recorded for audit.",
    tag: 'management',
    access: writePackage,
    responses: { 200: { description: 'the finding, open again', schema: s.driftFindingSchema } },
    errors: [
      { status: 404, codes: ['finding_not_found'] },
      { status: 409, codes: ['finding_not_acknowledged'] },
    ],
    handler: async ({ ctx, principal, pkg, params }) =>
      json(200, await packages.revokeFindingAcknowledgement(ctx, principal, pkg, params.finding_id)),
  }),
  defineRoute({
    method: 'GET',
    path: `${PKG}/audit`,
    operationId: 'listAudit',
    summary: 'The append-only audit log: acknowledgements, approvals, design changes, gate decisions',
    tag: 'management',
    access: readPackage,
    query: {
      after: {
        description: 'entries after this id (paging)',
        integer: { min: 0, max: Number.MAX_SAFE_INTEGER },
      },
      limit: { description: 'at most this many entries', integer: { min: 1, max: 1000 }, default: '100' },
    },
    responses: { 200: { description: 'entries, oldest first', schema: s.auditListSchema } },
    async handler({ ctx, pkg, query }) {
      const limit = Number(query.limit);
      const entries = await packages.listAudit(ctx, pkg, { after: query.after, limit });
      return json(200, {
        package_id: pkg.packageId,
        entries,
        next_after: entries.length === limit ? entries[entries.length - 1]!.id : null,
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts',
    operationId: 'createAccount',
    summary: 'Create an account with a plan',
    ...ADMIN,
    body: { kind: 'json', schema: s.createAccountSchema },
    responses: { 201: { description: 'created', schema: s.accountSchema } },
    errors: [
      { status: 403, codes: ['operator_only'] },
      { status: 409, codes: ['account_exists'] },
    ],
    handler: async ({ ctx, principal, body }) =>
      json(201, await admin.createAccount(ctx, principal, body.name, body.plan)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/admin/accounts/{name}',
    operationId: 'updateAccount',
    summary: "Change an account's plan",
    ...ADMIN,
    body: { kind: 'json', schema: s.patchAccountSchema },
    responses: { 200: { description: 'updated', schema: s.accountSchema } },
    errors: [
      { status: 403, codes: ['operator_only'] },
      { status: 404, codes: ['account_not_found'] },
    ],
    handler: async ({ ctx, principal, params, body }) =>
      json(200, await admin.updateAccountPlan(ctx, principal, params.name, body.plan)),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/{name}/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key; the key is in this response only',
    ...ADMIN,
    body: { kind: 'json', schema: s.createApiKeySchema },
    responses: { 201: { description: 'created', schema: s.createdApiKeySchema } },
    errors: [{ status: 404, codes: ['account_not_found'] }],
    async handler({ ctx, principal, params, body }) {
      const created = await admin.createApiKey(ctx, principal, params.name, body.name, body.scopes);
      return json(201, created, { 'Cache-Control': 'no-store' });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/admin/accounts/{name}/api-keys',
    operationId: 'listApiKeys',
    summary: "The account's API keys, oldest first, revoked ones included; never a key itself",
    ...ADMIN,
    responses: { 200: { description: 'the keys', schema: s.apiKeyListSchema } },
    errors: [{ status: 404, codes: ['account_not_found'] }],
    handler: async ({ ctx, principal, params }) =>
      json(200, await admin.listApiKeys(ctx, principal, params.name)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/admin/api-keys/{id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key, at once; a key revoked before is left as it was, and the answer says so',
    ...ADMIN,
    responses: {
      200: {
        description: 'revoked (already_revoked: it was, at revoked_at)',
        schema: s.apiKeyRevocationSchema,
      },
    },
    errors: [{ status: 404, codes: ['api_key_not_found'] }],
    handler: async ({ ctx, principal, params }) =>
      json(200, await admin.revokeApiKey(ctx, principal, params.id)),
  }),
  ...RUN_TASK_ROUTES,
  ...PLAN_ACKNOWLEDGEMENT_ROUTES,
  ...STATE_SOURCE_ROUTES,
];
