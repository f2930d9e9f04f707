// A run task's decision: the stage says whether there is a plan to judge; post_plan and pre_apply fetch the
// plan JSON from HCP Terraform and stream it into the same plan reader and engine as POST .../evaluate/terraform,
// against the package's approved design. No decision (package not approved, plan unreadable) is `failed`,
// never `passed`: fail closed.

import { type Dispatcher, request } from 'undici';
import { isTfgateError } from '../../../errors/index.js';
import { plural } from '../../../errors/plural.js';
import {
  type EvalFinding,
  type EvaluationResult,
  SEVERITIES,
  type Severity,
  severityAtLeast,
} from '../../../model/index.js';
import { readAndEvaluatePlan, toEvaluationResult } from '../../../policy/index.js';
import { code, inlineText } from '../../../report/markdown.js';
import { describeRule } from '../../../report/rules.js';
import { terminalSafe } from '../../../report/terminal-safe.js';
import type { PackageRecord } from '../../store/index.js';
import type { ServiceContext } from '../context.js';
import { decisionPolicyData } from '../plan-acknowledgements.js';
import type { RunTaskRequest, TagLevel, TaskResultOutcome } from './protocol.js';

export interface RunTaskDecision {
  status: 'passed' | 'failed';
  message: string;
  outcomes: TaskResultOutcome[];
  /** For the audit row: what was decided and on what. */
  audit: Record<string, unknown>;
}

/** HCP Terraform shows outcomes in a list; past this many, the message says how many more there are. */
const MAX_OUTCOMES = 200;
/** Redirects followed for the plan (HCP Terraform answers json-output with a redirect to a signed URL). */
const MAX_REDIRECTS = 3;
const PLAN_FETCH_TIMEOUT_MS = 5 * 60_000;

export class NoDecision extends Error {
  override readonly name = 'NoDecision';
}

export function originAllowed(url: string, allowed: readonly string[]): boolean {
  try {
    const parsed = new URL(url);
    // A URL with user:password@ is never called: fetch refuses it, so the task could never be answered.
    if (parsed.username !== '' || parsed.password !== '') return false;
    return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && allowed.includes(parsed.origin);
  } catch {
    return false;
  }
}

/**
 * The plan JSON, streamed. The access token goes only to an allowed origin: the first request, and a redirect
 * that stays on an allowed origin. A redirect elsewhere (HCP Terraform's signed, temporary archive URL) is
 * followed without the token.
 */
async function* fetchPlan(
  ctx: ServiceContext,
  url: string,
  token: string,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  let target = url;
  for (let hop = 0; ; hop++) {
    const withToken = originAllowed(target, ctx.config.runTaskAllowedOrigins);
    if (hop === 0 && !withToken) throw new NoDecision('the plan URL is not on an allowed origin');
    let response: Dispatcher.ResponseData;
    try {
      // undici's request (not fetch): a Node stream with backpressure, measured lighter than fetch's web
      // stream for a 100 MB plan (bench/run-task.bench.mjs).
      response = await request(target, {
        method: 'GET',
        headers: {
          accept: 'application/json',
          ...(withToken ? { authorization: `Bearer ${token}` } : {}),
        },
        signal,
      });
    } catch (error) {
      throw new NoDecision(`the plan could not be fetched from HCP Terraform: ${(error as Error).message}`);
    }
    // Discarding a body (destroy) makes undici emit an abort error: never an uncaught one in the service.
    response.body.on('error', () => undefined);
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
      await response.body.dump();
      if (hop >= MAX_REDIRECTS) throw new NoDecision('the plan URL redirected too many times');
      target = new URL(location, target).toString();
      continue;
    }
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new NoDecision(`HCP Terraform answered HTTP ${response.statusCode} for the plan JSON`);
    }
    let seen = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (seen > ctx.config.maxBody) {
        response.body.destroy();
        throw new NoDecision(
          `the plan JSON is larger than ${ctx.config.maxBody} bytes (the operator can raise --max-body)`,
        );
      }
      yield chunk;
    }
    return;
  }
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function severityLevel(severity: Severity): TagLevel {
  return severity === 'critical' || severity === 'high'
    ? 'error'
    : severity === 'medium'
      ? 'warning'
      : 'info';
}

/** One finding as HCP Terraform shows it: rule, address, kind, Severity and Status tags, the fix as the body. */
export function findingOutcome(finding: EvalFinding, minSeverity: Severity): TaskResultOutcome {
  const acknowledgement = finding.acknowledgement;
  const blocking = !acknowledgement && severityAtLeast(finding.severity, minSeverity);
  const rule = describeRule(finding.rule);
  // HCP Terraform renders the body as Markdown: what came from the plan is escaped as in the markdown report.
  const body = [
    `**${rule.title}.** ${inlineText(finding.message)}`,
    '',
    `- Rule: ${code(finding.rule)}`,
    `- Address: ${code(finding.address)}`,
    `- Kind: ${inlineText(finding.kind)}`,
    `- Actions: ${finding.actions.join(', ')}`,
    ...(finding.capability ? [`- Capability: ${inlineText(finding.capability)}`] : []),
    ...(acknowledgement
      ? [
          `- Acknowledged by ${inlineText(acknowledgement.by)} at ${acknowledgement.at}${acknowledgement.expires_at ? `, until ${acknowledgement.expires_at}` : ''}: ${inlineText(acknowledgement.reason)}`,
        ]
      : []),
    // A remote run's plan JSON carries no file or line: the address is the location tfgate knows.
    '',
    `**How to fix:** ${rule.remediation}`,
  ].join('\n');
  return {
    type: 'task-result-outcomes',
    attributes: {
      'outcome-id': finding.id,
      // Plain text: control and bidirectional characters as visible escapes, as in the text report.
      description: terminalSafe(`${finding.rule}: ${finding.address} (${finding.kind})`).slice(0, 250),
      body,
      tags: {
        Severity: [{ label: capitalised(finding.severity), level: severityLevel(finding.severity) }],
        Status: acknowledgement
          ? [{ label: 'Acknowledged', level: 'info' }]
          : blocking
            ? [{ label: 'Blocking', level: 'error' }]
            : [{ label: `Below ${minSeverity}`, level: 'info' }],
        Rule: [{ label: finding.rule }],
        Kind: [{ label: terminalSafe(finding.kind) }],
      },
    },
  };
}

function notApproved(pkg: PackageRecord): string | undefined {
  if (pkg.approved) return undefined;
  return pkg.approvedRevision === null
    ? `package "${pkg.packageId}" has no approved design`
    : `package "${pkg.packageId}" has a changed design (revision ${pkg.revision}) that is not approved yet`;
}

/**
 * The findings in the order HCP Terraform lists them, of which it is sent at most MAX_OUTCOMES: blocking ones
 * first, the most severe first, so that what is cut is never why the run failed (else by address, as given).
 */
function listedFirst(findings: readonly EvalFinding[], minSeverity: Severity): EvalFinding[] {
  const rank = (f: EvalFinding) =>
    (!f.acknowledgement && severityAtLeast(f.severity, minSeverity) ? 0 : SEVERITIES.length) +
    (SEVERITIES.length - 1 - SEVERITIES.indexOf(f.severity));
  // Array.prototype.sort is stable: findings of one rank keep their address order.
  return [...findings].sort((a, b) => rank(a) - rank(b));
}

function judged(result: EvaluationResult, pkg: PackageRecord): RunTaskDecision {
  const blocking = result.findings.filter(
    (f) => !f.acknowledgement && severityAtLeast(f.severity, result.min_severity),
  );
  const acknowledged = result.findings.filter((f) => f.acknowledgement).map((f) => f.id);
  const expired = (result.expired_acknowledgements ?? []).map((a) => a.finding_id);
  const shown = listedFirst(result.findings, result.min_severity).slice(0, MAX_OUTCOMES);
  const more =
    result.findings.length > shown.length
      ? ` (${result.findings.length - shown.length} more not listed)`
      : '';
  const message =
    result.decision === 'block'
      ? `${plural(blocking.length, 'finding')} at or above ${result.min_severity} against the approved design of "${pkg.packageId}": do not apply${more}`
      : `The plan conforms to the approved design of "${pkg.packageId}": no finding at or above ${result.min_severity}${more}`;
  return {
    status: result.decision === 'block' ? 'failed' : 'passed',
    message,
    outcomes: shown.map((f) => findingOutcome(f, result.min_severity)),
    audit: {
      decision: result.decision,
      revision: pkg.revision,
      findings: result.findings.map((f) => f.id),
      resource_changes: result.counts.resource_changes,
      ...(acknowledged.length > 0 ? { acknowledged } : {}),
      ...(expired.length > 0 ? { expired_acknowledgements: expired } : {}),
    },
  };
}

export interface RunTaskInput {
  pkg: PackageRecord;
  request: RunTaskRequest;
  minSeverity: Severity;
  signal: AbortSignal;
}

export async function decideRunTask(ctx: ServiceContext, input: RunTaskInput): Promise<RunTaskDecision> {
  const speculative = input.request.is_speculative ? 'Speculative run, judged like any other. ' : '';
  const decision = await decideStage(ctx, input);
  return { ...decision, message: `${speculative}${decision.message}`.slice(0, 500) };
}

async function decideStage(
  ctx: ServiceContext,
  { pkg, request, minSeverity, signal }: RunTaskInput,
): Promise<RunTaskDecision> {
  const noDecision = (reason: string): RunTaskDecision => ({
    status: 'failed',
    message: `No decision, so no apply: ${reason}`,
    outcomes: [],
    audit: { decision: 'none', reason },
  });
  switch (request.stage) {
    case 'pre_plan':
      return {
        status: 'passed',
        message:
          'Nothing is judged before a plan: tfgate judges the plan at the post_plan or pre_apply stage; attach the run task there',
        outcomes: [],
        audit: { decision: 'not_judged' },
      };
    case 'post_apply':
      return {
        status: 'passed',
        message:
          'Nothing is judged after apply: tfgate judges the plan at the post_plan or pre_apply stage; attach the run task there',
        outcomes: [],
        audit: { decision: 'not_judged' },
      };
    case 'post_plan':
    case 'pre_apply':
      break;
    default:
      return noDecision(`the stage "${request.stage}" is not one tfgate knows`);
  }
  const unapproved = notApproved(pkg);
  if (unapproved) return noDecision(`${unapproved}; approve it, then run the plan again`);
  if (!request.plan_json_api_url) return noDecision('the request carries no plan_json_api_url');
  const engine = await ctx.engine();
  let result: EvaluationResult;
  let now: Date;
  try {
    // The same as POST evaluate: evaluated as it is fetched, against the approved design and the package's
    // plan acknowledgements, judged at the moment the plan has been read.
    const streamed = await readAndEvaluatePlan(
      fetchPlan(
        ctx,
        request.plan_json_api_url,
        request.access_token,
        AbortSignal.any([signal, AbortSignal.timeout(PLAN_FETCH_TIMEOUT_MS)]),
      ),
      engine,
      decisionPolicyData(ctx, pkg),
      { description: 'the plan JSON from HCP Terraform' },
    );
    now = streamed.now;
    result = toEvaluationResult(pkg.packageId, minSeverity, streamed.evaluation);
  } catch (error) {
    if (error instanceof NoDecision) return noDecision(error.message);
    if (isTfgateError(error)) return noDecision(`the plan JSON is not readable: ${error.message}`);
    if (error instanceof SyntaxError) return noDecision(`the plan JSON is not readable: ${error.message}`);
    throw error;
  }
  const expired = (result.expired_acknowledgements ?? []).map((a) => a.finding_id);
  await ctx.store.planAcknowledgements.auditExpired(pkg, expired, now.toISOString());
  return judged(result, pkg);
}
