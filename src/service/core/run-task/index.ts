// tfgate as an HCP Terraform / Terraform Enterprise run task: configuration (the HMAC key, sealed), the
// signed request (checked before anything else, then recorded and answered at once), and the work on a
// recorded task (running, the decision, the result), which any instance may finish (run-task-worker.ts).
import { parseUntrustedJson } from '../../../json/untrusted.js';
import { SEVERITIES, type Severity } from '../../../model/index.js';
import type { PackageRecord, RunTaskRecord } from '../../store/index.js';
import type { Principal } from '../../types.js';
import { type RequestBody, readSmallBody } from '../body.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { decideRunTask, originAllowed } from './decide.js';
import { DeliveryError, type DeliveryOptions, deliverTaskResult } from './deliver.js';
import {
  type RunTaskRequest,
  runTaskRequestSchema,
  signatureMatches,
  signatureWellFormed,
  taskResult,
  VERIFICATION_TOKEN,
} from './protocol.js';
import { createSealer, type Sealer } from './seal.js';

export { SIGNATURE_HEADER } from './protocol.js';

const MAX_REQUEST_BYTES = 256 * 1024;
/** HCP Terraform fails a task it has not heard the end of within 60 minutes: past that, give up. */
const TASK_DEADLINE_MS = 60 * 60_000;
/** After the in-process retries of a callback fail, the task is taken up again this much later. */
const REDELIVER_AFTER_MS = 30_000;

const sealers = new WeakMap<ServiceContext, Sealer>();
function sealer(ctx: ServiceContext): Sealer {
  let s = sealers.get(ctx);
  if (!s) {
    s = createSealer(ctx.platformKey.privateKeyPem);
    sealers.set(ctx, s);
  }
  return s;
}
/** Each service's worker (run-task-worker.ts), told of every task this instance accepts. */
const workers = new WeakMap<ServiceContext, (task: RunTaskRecord) => void>();
export function onRunTaskAccepted(ctx: ServiceContext, start: (task: RunTaskRecord) => void): void {
  workers.set(ctx, start);
}

const keyContext = (pkg: Pick<PackageRecord, 'pk'>) => `run-task-hmac-key:${pkg.pk}`;
const payloadContext = (taskResultId: string) => `run-task-payload:${taskResultId}`;

export interface RunTaskConfigView {
  package_id: string;
  configured: boolean;
  min_severity?: Severity;
  /** The URL to paste into HCP Terraform's run task form (its "Endpoint URL"). */
  url: string;
  allowed_origins: string[];
  created_at?: string;
  updated_at?: string;
}

export async function configureRunTask(
  ctx: ServiceContext,
  principal: Principal,
  pkg: PackageRecord,
  body: { hmac_key: string; min_severity?: Severity | undefined },
  url: string,
): Promise<{ created: boolean; view: RunTaskConfigView }> {
  const minSeverity = body.min_severity ?? 'low';
  const { config, created } = await ctx.store.runTasks.putConfig(
    principal,
    pkg,
    sealer(ctx).seal(body.hmac_key, keyContext(pkg)),
    minSeverity,
  );
  return {
    created,
    view: {
      package_id: pkg.packageId,
      configured: true,
      min_severity: minSeverity,
      url,
      allowed_origins: ctx.config.runTaskAllowedOrigins,
      created_at: config.createdAt,
      updated_at: config.updatedAt,
    },
  };
}

export async function showRunTask(
  ctx: ServiceContext,
  pkg: PackageRecord,
  url: string,
): Promise<RunTaskConfigView> {
  const config = await ctx.store.runTasks.getConfig(pkg);
  if (!config) {
    return {
      package_id: pkg.packageId,
      configured: false,
      url,
      allowed_origins: ctx.config.runTaskAllowedOrigins,
    };
  }
  return {
    package_id: pkg.packageId,
    configured: true,
    min_severity: toSeverity(config.minSeverity),
    url,
    allowed_origins: ctx.config.runTaskAllowedOrigins,
    created_at: config.createdAt,
    updated_at: config.updatedAt,
  };
}

const toSeverity = (value: string): Severity =>
  (SEVERITIES as readonly string[]).includes(value) ? (value as Severity) : 'low';

const refusedSignature = () =>
  new ServiceError(
    401,
    'invalid_signature',
    'the X-TFC-Task-Signature header is missing or does not match the HMAC key of this package\'s run task; give HCP Terraform the key set with "tfgate run-task configure"',
  );

export type ReceiveOutcome =
  | { kind: 'verification' }
  | { kind: 'duplicate'; task: Pick<RunTaskRecord, 'taskResultId'> }
  | { kind: 'accepted'; task: RunTaskRecord };

/**
 * A request from HCP Terraform. The signature is checked first, against the key of every package with this
 * id that has a run task (the URL names no account), before the body is parsed or anything is fetched; a
 * request with no well-formed signature, or for an id with no run task, is refused before its body is read.
 */
export async function receiveRunTask(
  ctx: ServiceContext,
  packageId: string,
  upload: RequestBody,
  signature: string | undefined,
): Promise<ReceiveOutcome> {
  // Cheap refusals first: no well-formed signature, or no run task under this id, costs no body read.
  if (!signatureWellFormed(signature)) throw refusedSignature();
  const candidates = await ctx.store.runTasks.configsForPackageId(packageId);
  if (candidates.length === 0) throw refusedSignature();
  const bytes = await readSmallBody(upload, MAX_REQUEST_BYTES);
  const matched = candidates.find(({ pkg, config }) => {
    const key = sealer(ctx).open(config.hmacKeySealed, keyContext(pkg));
    if (key === null) {
      ctx.log.warn(
        'run task key cannot be opened (was the signing key rotated?); configure the run task again',
        {
          package_id: pkg.packageId,
          account: pkg.account,
        },
      );
      return false;
    }
    return signatureMatches(bytes, signature, key);
  });
  if (!matched) throw refusedSignature();
  const { pkg } = matched;
  let request: RunTaskRequest;
  let problem = 'it is not JSON';
  try {
    const parsed = runTaskRequestSchema.safeParse(parseUntrustedJson(bytes, MAX_REQUEST_BYTES));
    if (!parsed.success) {
      // The field, in the payload's own words; never the schema library's message.
      const field = parsed.error.issues[0]?.path.join('.');
      problem = field ? `"${field}" is missing or not as documented` : 'the body is not a JSON object';
      throw new Error(problem);
    }
    request = parsed.data;
  } catch {
    throw new ServiceError(
      400,
      'invalid_run_task_request',
      `the body is not a run task request: ${problem} (payload_version 1 with stage, access_token, task_result_id and task_result_callback_url); see HCP Terraform's run tasks integration API`,
    );
  }
  if (request.access_token === VERIFICATION_TOKEN) {
    ctx.log.info('run task verification', { package_id: pkg.packageId, account: pkg.account });
    return { kind: 'verification' };
  }
  const allowed = ctx.config.runTaskAllowedOrigins;
  for (const [field, url] of [
    ['task_result_callback_url', request.task_result_callback_url],
    ['plan_json_api_url', request.plan_json_api_url],
  ] as const) {
    if (url && hasCredentials(url)) {
      throw new ServiceError(
        400,
        'invalid_run_task_request',
        `${field} carries a user name or password (user:password@host): HCP Terraform never sends one, and the service cannot call such a URL`,
        { details: { field } },
      );
    }
    if (url && !originAllowed(url, allowed)) {
      ctx.log.warn('run task refused: origin not allowed', {
        package_id: pkg.packageId,
        account: pkg.account,
        field,
        run_id: request.run_id,
      });
      throw new ServiceError(
        403,
        'origin_not_allowed',
        `${field} is not on an origin this service may call (${allowed.join(', ')}); the operator can allow it with --run-task-allowed-origins (TFGATE_RUN_TASK_ALLOWED_ORIGINS)`,
        { details: { field, allowed_origins: allowed } },
      );
    }
  }
  const task = {
    taskResultId: request.task_result_id,
    packagePk: pkg.pk,
    payloadSealed: sealer(ctx).seal(JSON.stringify(request), payloadContext(request.task_result_id)),
    stage: request.stage,
    runId: request.run_id,
    workspaceName: request.workspace_name,
    organizationName: request.organization_name,
  };
  const { created } = await ctx.store.runTasks.receive(task, ctx.instanceId, ctx.config.runTaskLease);
  if (!created) return { kind: 'duplicate', task };
  const accepted = { ...task, attempts: 1, receivedAt: new Date().toISOString() };
  // Worked on in the background; the answer goes out now. Should this instance stop first, the lease runs
  // out and another instance (or this one, restarted) claims the task.
  workers.get(ctx)?.(accepted);
  return { kind: 'accepted', task: accepted };
}

/** What happened to one task on this instance, for the log. */
export interface WorkOutcome {
  state: 'done' | 'abandoned' | 'released' | 'lost';
  result?: 'passed' | 'failed';
  reason?: string;
}

/**
 * Works on a task this instance holds: `running`, the decision, the result, then the task is finished and
 * audited. Holding the lease is renewed while it works; a callback that cannot be delivered yet gives the
 * task back for later, until HCP Terraform's hour is over.
 */
export async function workOnRunTask(
  ctx: ServiceContext,
  task: RunTaskRecord,
  options: { signal: AbortSignal; delivery?: DeliveryOptions },
): Promise<WorkOutcome> {
  const store = ctx.store.runTasks;
  const pkg = await store.packageByPk(task.packagePk);
  const text = sealer(ctx).open(task.payloadSealed, payloadContext(task.taskResultId));
  const auditBase = {
    task_result_id: task.taskResultId,
    run_id: task.runId,
    workspace: task.workspaceName,
    organization: task.organizationName,
    stage: task.stage,
    instance: ctx.instanceId,
    attempts: task.attempts,
  };
  const audit = (details: Record<string, unknown>) => ({
    event: 'run_task_decided',
    account: pkg?.account ?? 'unknown',
    packagePk: task.packagePk,
    packageId: pkg?.packageId ?? null,
    keyName: 'hcp-terraform',
    details: { ...auditBase, ...details },
  });
  const abandon = async (reason: string): Promise<WorkOutcome> => {
    const finished = await store.finish(
      task,
      ctx.instanceId,
      { status: 'abandoned', resultStatus: null },
      audit({ delivered: false, reason }),
    );
    return finished ? { state: 'abandoned', reason } : { state: 'lost' };
  };
  if (!pkg || text === null) {
    return abandon(
      pkg ? 'the stored request cannot be opened (signing key rotated?)' : 'the package is gone',
    );
  }
  const request = runTaskRequestSchema.parse(parseUntrustedJson(text, MAX_REQUEST_BYTES));
  if (Date.now() - Date.parse(task.receivedAt) > TASK_DEADLINE_MS) {
    return abandon('HCP Terraform stopped waiting: the task is older than 60 minutes');
  }
  const config = await store.getConfig(pkg);
  const minSeverity = toSeverity(config?.minSeverity ?? 'low');
  const renew = setInterval(
    () => {
      void store
        .renewLease(task.taskResultId, ctx.instanceId, ctx.config.runTaskLease)
        .catch(() => undefined);
    },
    Math.max(200, Math.floor(ctx.config.runTaskLease / 3)),
  );
  renew.unref();
  const deliver = (body: Parameters<typeof deliverTaskResult>[2]) =>
    deliverTaskResult(request.task_result_callback_url, request.access_token, body, {
      signal: options.signal,
      ...options.delivery,
    });
  try {
    // Only the stages that carry a plan are judged (decide.ts): the others are told so in the final result.
    const judging = request.stage === 'post_plan' || request.stage === 'pre_apply';
    await deliver(
      taskResult(
        'running',
        judging
          ? `tfgate is judging the plan against the approved design of "${pkg.packageId}"`
          : `tfgate received the ${request.stage} stage for package "${pkg.packageId}"`,
      ),
    );
    const decision = await decideRunTask(ctx, { pkg, request, minSeverity, signal: options.signal });
    await deliver(taskResult(decision.status, decision.message, decision.outcomes));
    const finished = await store.finish(
      task,
      ctx.instanceId,
      { status: 'done', resultStatus: decision.status },
      audit({
        delivered: true,
        status: decision.status,
        min_severity: minSeverity,
        speculative: request.is_speculative,
        ...decision.audit,
      }),
    );
    return finished ? { state: 'done', result: decision.status } : { state: 'lost' };
  } catch (error) {
    if (error instanceof DeliveryError) {
      if (!error.retryable) return abandon(error.message);
      await store.release(task.taskResultId, ctx.instanceId, REDELIVER_AFTER_MS);
      return { state: 'released', reason: error.message };
    }
    throw error;
  } finally {
    clearInterval(renew);
  }
}

/** A URL with user:password@ (never written by HCP Terraform; fetch refuses to call it). */
function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}
