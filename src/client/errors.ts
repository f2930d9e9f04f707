// HTTP status -> TfgateError, as a table. The contract's error body refines the message when it matches;
// without it the status alone decides, so any service that follows the interface gets a clear error.
import { ExitCode, TfgateError } from '../errors/index.js';
import type { ContractError } from './schemas.js';

export type Operation = DecisionOperation | ManagementOperation;
/** Calls a decision depends on: their refusals mostly mean no decision (exit 4). */
export type DecisionOperation = 'gate' | 'evaluation' | 'bundle' | 'public key';
/** Management calls (`keys create`, `state push`): a refusal is the caller's to fix (exit 1). */
export type ManagementOperation =
  | 'API key creation'
  | 'observed state push'
  | 'API key revocation'
  | 'API key list'
  | 'account creation'
  | 'design push'
  | 'design approval'
  | 'package read'
  | 'findings list'
  | 'finding acknowledgement'
  | 'finding acknowledgement revocation'
  | 'plan finding acknowledgement'
  | 'plan acknowledgement revocation'
  | 'plan acknowledgements list'
  | 'audit read'
  | 'run task configuration'
  | 'run task read'
  | 'state source set'
  | 'state source read'
  | 'state source clear';

const MANAGEMENT_OPERATIONS: ReadonlySet<Operation> = new Set<Operation>([
  'API key creation',
  'observed state push',
  'API key revocation',
  'API key list',
  'account creation',
  'design push',
  'design approval',
  'package read',
  'findings list',
  'finding acknowledgement',
  'plan finding acknowledgement',
  'plan acknowledgement revocation',
  'plan acknowledgements list',
  'audit read',
  'run task configuration',
  'run task read',
  'state source set',
  'state source read',
  'state source clear',
]);

export interface FailureContext {
  operation: Operation;
  status: number;
  baseUrl: string;
  packageId?: string;
  /** The contract error body, when the response had one that matched. */
  body?: ContractError;
  /** Attempts made, retries included. */
  attempts: number;
}

interface StatusRule {
  code: (ctx: FailureContext) => string;
  exitCode: (ctx: FailureContext) => ExitCode;
  message: (ctx: FailureContext) => string;
  hint: (ctx: FailureContext) => string;
}

const pkg = (ctx: FailureContext) => (ctx.packageId ? `package "${ctx.packageId}"` : 'the package');
const said = (ctx: FailureContext) => (ctx.body ? `: ${ctx.body.message}` : '');
const tries = (ctx: FailureContext) => (ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : '');
const bodyCode = (fallback: string) => (ctx: FailureContext) => ctx.body?.code ?? fallback;
const fixed =
  <T>(value: T) =>
  () =>
    value;

const NOTHING_APPLIED = 'Nothing was applied.';

/** The scope each call needs (service README "Scopes"). */
const SCOPE_NEEDED: Readonly<Record<Operation, string>> = {
  gate: 'compliance:read',
  evaluation: 'compliance:read',
  bundle: 'compliance:read',
  'public key': 'compliance:read',
  'API key creation': 'admin',
  'observed state push': 'compliance:write',
  'API key revocation': 'admin',
  'API key list': 'admin',
  'account creation': 'admin',
  'design push': 'compliance:write',
  'design approval': 'compliance:write',
  'package read': 'compliance:read',
  'findings list': 'compliance:read',
  'finding acknowledgement': 'compliance:write',
  'finding acknowledgement revocation': 'compliance:write',
  'plan finding acknowledgement': 'compliance:write',
  'plan acknowledgement revocation': 'compliance:write',
  'plan acknowledgements list': 'compliance:read',
  'audit read': 'compliance:read',
  'run task configuration': 'compliance:write',
  'run task read': 'compliance:read',
  'state source set': 'compliance:write',
  'state source read': 'compliance:read',
  'state source clear': 'compliance:write',
};

/** Exit 1 when the caller must fix its own invocation or credentials; exit 4 when no decision was reached. */
const STATUS_RULES: Record<number, StatusRule> = {
  400: {
    code: bodyCode('bad_request'),
    // A plan the service cannot read is like an unreadable plan locally (exit 4); a bad parameter is usage.
    exitCode: (ctx) =>
      ctx.body?.code === 'invalid_parameter' || (!ctx.body && ctx.operation !== 'evaluation')
        ? ExitCode.usage
        : ExitCode.noDecision,
    message: (ctx) => `the service rejected the ${ctx.operation} request (HTTP 400)${said(ctx)}`,
    hint: (ctx) =>
      ctx.body?.code === 'invalid_plan' || ctx.operation === 'evaluation'
        ? `send the output of "terraform show -json <planfile>" for a saved plan. ${NOTHING_APPLIED}`
        : ctx.operation.includes('acknowledgement')
          ? 'check --reason, --plan-finding <rule>:<address> and --expires-in/--expires-at (in the future)'
          : 'check --min-severity (low, medium, high, critical) and the other options',
  },
  401: {
    code: bodyCode('unauthorized'),
    exitCode: fixed(ExitCode.usage),
    message: (ctx) => `the service did not accept the API key (HTTP 401)${said(ctx)}`,
    hint: () =>
      "set TFGATE_API_KEY from the pipeline's secret store; the key may be mistyped, revoked, or for another service",
  },
  403: {
    code: bodyCode('forbidden'),
    exitCode: fixed(ExitCode.usage),
    message: (ctx) => {
      if (ctx.body?.code === 'insufficient_scope')
        return `the API key lacks a scope this call needs${said(ctx)}`;
      if (ctx.body?.code === 'plan_not_eligible')
        return `the account's plan does not include the conformance gate${said(ctx)}`;
      return `the service refused the ${ctx.operation} call (HTTP 403)${said(ctx)}`;
    },
    hint: (ctx) => {
      if (ctx.body?.code === 'insufficient_scope')
        return 'use a key with the compliance:read scope (an admin creates one: tfgate keys create --account <account> --name <name> --scopes compliance:read)';
      if (ctx.body?.code === 'plan_not_eligible')
        return 'the gate, plan evaluation, bundle and public key need the large plan or above; ask an admin to upgrade the account';
      return 'the key needs the compliance:read scope, and the account the large plan or above';
    },
  },
  404: {
    code: bodyCode('not_found'),
    exitCode: (ctx) => (ctx.operation === 'public key' ? ExitCode.noDecision : ExitCode.usage),
    message: (ctx) =>
      ctx.operation === 'public key'
        ? `the service at ${ctx.baseUrl} has no public key (HTTP 404)${said(ctx)}`
        : `${pkg(ctx)} was not found at ${ctx.baseUrl} (HTTP 404)${said(ctx)}`,
    hint: (ctx) =>
      ctx.operation === 'public key'
        ? 'check --base-url: it must point at the tfgate service root'
        : 'check --package (the identifier is shown in the package header) and --base-url; a package of another account is not visible to this key',
  },
  409: {
    code: bodyCode('conflict'),
    exitCode: fixed(ExitCode.noDecision),
    message: (ctx) =>
      !ctx.body || ctx.body.code === 'package_not_approved'
        ? `${pkg(ctx)} is not approved, so it cannot be ${ctx.operation === 'bundle' ? 'bundled' : 'gated'} (HTTP 409)${said(ctx)}`
        : `the service could not decide on ${pkg(ctx)} (HTTP 409 ${ctx.body.code})${said(ctx)}`,
    hint: (ctx) =>
      !ctx.body || ctx.body.code === 'package_not_approved'
        ? `approve the package: tfgate design approve --package ${ctx.packageId ?? '<id>'} (a changed design needs approval again). ${NOTHING_APPLIED}`
        : `fix what the service names, then run again. ${NOTHING_APPLIED}`,
  },
  413: {
    code: bodyCode('payload_too_large'),
    exitCode: fixed(ExitCode.noDecision),
    message: (ctx) => `the plan is larger than the service accepts (HTTP 413)${said(ctx)}`,
    hint: () =>
      `evaluate it locally with a pulled bundle (tfgate bundle pull, then --bundle and --public-key), or raise the service's size limit. ${NOTHING_APPLIED}`,
  },
  415: {
    code: bodyCode('unsupported_media_type'),
    exitCode: fixed(ExitCode.usage),
    message: (ctx) => `the service refused the request's content type (HTTP 415)${said(ctx)}`,
    hint: () => 'this is a bug in tfgate or a proxy rewriting headers; please report it',
  },
  429: {
    code: bodyCode('rate_limited'),
    exitCode: fixed(ExitCode.noDecision),
    message: (ctx) =>
      `the service kept rate-limiting the ${ctx.operation} call (HTTP 429)${tries(ctx)}${said(ctx)}`,
    hint: () => `retry the job later, or raise the key's rate limit. ${NOTHING_APPLIED}`,
  },
  // The service's own answers about the package's state backend, said as the backend's failure; any other
  // 502 (a proxy's, a crash) is a server failure, in SERVER_ERROR's words.
  502: {
    code: (ctx) => SERVER_ERROR.code(ctx),
    exitCode: fixed(ExitCode.noDecision),
    message: (ctx) => stateBackendAnswer(ctx).message(ctx),
    hint: (ctx) => stateBackendAnswer(ctx).hint(ctx),
  },
  504: {
    code: bodyCode('gateway_timeout'),
    exitCode: fixed(ExitCode.noDecision),
    message: (ctx) =>
      ctx.body?.code === 'drift_check_timeout'
        ? `the drift check ran past its time limit (HTTP 504)${tries(ctx)}${said(ctx)}`
        : `the service timed out on the ${ctx.operation} call (HTTP 504)${tries(ctx)}${said(ctx)}`,
    hint: (ctx) =>
      ctx.body?.code === 'drift_check_timeout'
        ? `retry later, or gate on the last scheduled check (drop --refresh). ${NOTHING_APPLIED}`
        : `retry the job later. ${NOTHING_APPLIED}`,
  },
};

/**
 * The service's 502 answers that are final, not a passing fault: the package's state backend could not be read
 * (the service's terraform tried it, and says why), or it names a backend the service does not allow. The
 * client does not try them again (http.ts): another attempt fails the same way, after as long again.
 */
const STATE_BACKEND_ANSWERS = new Map<string, Pick<StatusRule, 'message' | 'hint'>>([
  [
    'drift_check_failed',
    {
      message: (ctx) =>
        `the state backend of ${pkg(ctx)} could not be read (HTTP 502 drift_check_failed)${said(ctx)}`,
      hint: (ctx) =>
        `the service is up; it reads the state through terraform with the credentials in its own environment: check the backend's settings (tfgate state-source show --package ${ctx.packageId ?? '<id>'}), that the backend can be reached from the service, and the credentials there. To gate on pushed state meanwhile: tfgate state-source set … --fallback pushed. ${NOTHING_APPLIED}`,
    },
  ],
  [
    'state_backend_not_allowed',
    {
      message: (ctx) =>
        `${pkg(ctx)} names a state backend the service does not allow (HTTP 502 state_backend_not_allowed)${said(ctx)}`,
      hint: (ctx) =>
        `name an allowed backend (tfgate state-source set --package ${ctx.packageId ?? '<id>'} --type …), or ask the operator to allow it (tfgate serve --state-backends, TFGATE_STATE_BACKENDS). ${NOTHING_APPLIED}`,
    },
  ],
]);

/** Error codes the service answers with a retryable status that no retry can change. */
export const FINAL_ERROR_CODES: ReadonlySet<string> = new Set(STATE_BACKEND_ANSWERS.keys());

function stateBackendAnswer(ctx: FailureContext): Pick<StatusRule, 'message' | 'hint'> {
  return (ctx.body && STATE_BACKEND_ANSWERS.get(ctx.body.code)) || SERVER_ERROR;
}

const SERVER_ERROR: StatusRule = {
  code: bodyCode('service_unavailable'),
  exitCode: fixed(ExitCode.noDecision),
  message: (ctx) =>
    `the service failed the ${ctx.operation} call (HTTP ${ctx.status})${tries(ctx)}${said(ctx)}`,
  hint: () => `retry the job later, or check the service's health. ${NOTHING_APPLIED}`,
};

/** A management call refused (any 4xx): the caller must fix what the service names (exit 1). */
const MANAGEMENT_REFUSAL: StatusRule = {
  code: (ctx) => ctx.body?.code ?? `http_${ctx.status}`,
  exitCode: fixed(ExitCode.usage),
  message: (ctx) => `the service answered ${ctx.status}${ctx.body ? said(ctx) : ` to the ${ctx.operation}`}`,
  hint: (ctx) => {
    if (ctx.status === 401) return STATUS_RULES[401]!.hint(ctx);
    if (ctx.status === 403) return `the key needs the ${SCOPE_NEEDED[ctx.operation]} scope`;
    if (ctx.status === 404)
      return 'check --package or --account, and --base-url; what another account owns is not visible to this key';
    return 'fix what the service names, then run again';
  },
};

const UNEXPECTED: StatusRule = {
  code: fixed('unexpected_status'),
  exitCode: fixed(ExitCode.noDecision),
  message: (ctx) =>
    `the service answered the ${ctx.operation} call with an unexpected HTTP ${ctx.status}${said(ctx)}`,
  hint: () =>
    `check --base-url: it must point at the tfgate service, not a proxy or login page. ${NOTHING_APPLIED}`,
};

export function errorForStatus(ctx: FailureContext): TfgateError {
  const management = MANAGEMENT_OPERATIONS.has(ctx.operation);
  const rule =
    management && ctx.status >= 400 && ctx.status < 500
      ? MANAGEMENT_REFUSAL
      : (STATUS_RULES[ctx.status] ?? (ctx.status >= 500 ? SERVER_ERROR : UNEXPECTED));
  return new TfgateError(rule.code(ctx), rule.message(ctx), {
    exitCode: rule.exitCode(ctx),
    hint: rule.hint(ctx),
    details: {
      status: ctx.status,
      operation: ctx.operation,
      ...(ctx.body ? { service_code: ctx.body.code } : {}),
    },
  });
}
