// Findings a pipeline's own policy approval let through (Atlantis's `approve_policies`): the blocking
// findings of the JSON result the policy check wrote, matched by id (package, rule and address), so that an
// apply after the approval is not blocked again by them while anything new still blocks.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { NoDecisionError, UsageError } from '../errors/index.js';
import { shownPath, withShownPath } from '../errors/shown.js';
import { readFileWithin } from '../fs/read-within.js';
import { parseUntrustedJson } from '../json/untrusted.js';
import type { PlanEvaluator } from '../model/evaluator.js';
import { type Acknowledgement, decide, severityAtLeast } from '../model/index.js';
import { evaluationResultSchema } from '../schemas/contract.js';

/** A policy check's result is small (findings, counts); anything larger is refused unread. */
export const MAX_APPROVED_RESULT_BYTES = 64 * 1024 * 1024;

export interface ApprovedFindings {
  packageId: string;
  /** Finding id -> how it was approved, shown as an acknowledgement in the reports. */
  approvals: ReadonlyMap<string, Acknowledgement>;
}

const HINT =
  'the policy check step writes it with --format json --output "$POLICYCHECKFILE" (see examples/atlantis)';

/** Read the approved result: its blocking findings, when it blocked; nothing when it passed. */
export async function readApprovedFindings(path: string): Promise<ApprovedFindings> {
  let bytes: Buffer;
  let writtenAt: Date;
  try {
    writtenAt = (await stat(path)).mtime;
    // Bounded while reading: a pipe or a device has no size to check beforehand, and a file can grow.
    const read = await readFileWithin(path, MAX_APPROVED_RESULT_BYTES);
    if (read === undefined) throw new Error('it is more than a policy check result can be (at most 64 MiB)');
    bytes = read;
  } catch (error) {
    throw new NoDecisionError(
      'approved_findings_unreadable',
      `cannot read the approved policy check result ${shownPath(path)}: ${withShownPath((error as Error).message, path)}`,
      { hint: HINT, cause: error },
    );
  }
  let json: unknown;
  try {
    // A file from the pipeline is untrusted input: the untrusted-JSON reader, never JSON.parse.
    json = parseUntrustedJson(bytes, MAX_APPROVED_RESULT_BYTES);
  } catch (error) {
    throw new NoDecisionError(
      'approved_findings_invalid',
      `the approved policy check result ${shownPath(path)} is not JSON: ${(error as Error).message}`,
      { hint: HINT, cause: error },
    );
  }
  // A policy check without a decision writes its result file as one (NoDecisionReport): nothing was approved.
  if (isRecord(json) && json.decision === 'no_decision') {
    const reason =
      isRecord(json.error) && typeof json.error.message === 'string' ? json.error.message : undefined;
    throw new NoDecisionError(
      'approved_findings_undecided',
      `the policy check recorded in ${shownPath(path)} reached no decision${reason === undefined ? '' : ` (${reason})`}, so it approved nothing`,
      {
        hint: 'run the policy check again until it decides (Atlantis: atlantis plan), then approve its result',
      },
    );
  }
  const parsed = evaluationResultSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') || 'the top level';
    throw new NoDecisionError(
      'approved_findings_invalid',
      `the approved policy check result ${shownPath(path)} is not tfgate's JSON evaluation result (${where} is missing or wrong)`,
      { hint: HINT },
    );
  }
  const result = parsed.data;
  const approval: Acknowledgement = {
    by: 'a policy owner',
    account: 'atlantis approve_policies',
    at: writtenAt.toISOString(),
    reason: `blocked in the policy check recorded in ${basename(path)}, approved before apply`,
  };
  const approvals = new Map<string, Acknowledgement>();
  if (result.decision === 'block') {
    for (const finding of result.findings) {
      if (severityAtLeast(finding.severity, result.min_severity)) approvals.set(finding.id, approval);
    }
  }
  return { packageId: result.package_id, approvals };
}

/**
 * Decide with the approved findings let through: a block stands while any blocking finding is not
 * approved, and a block the service gave without showing a blocking finding stands too (fail closed).
 */
export function withApprovedFindings(evaluator: PlanEvaluator, approved: ApprovedFindings): PlanEvaluator {
  return {
    description: evaluator.description,
    async evaluate(source, minSeverity) {
      const result = await evaluator.evaluate(source, minSeverity);
      if (result.package_id !== approved.packageId) {
        throw new UsageError(
          'approved_findings_package_mismatch',
          `the approved policy check result is for package ${approved.packageId}, this plan was evaluated for ${result.package_id}`,
          { hint: 'pass the result the policy check step wrote for this project' },
        );
      }
      if (result.decision === 'pass') return result;
      const blocking = result.findings.filter((f) => severityAtLeast(f.severity, result.min_severity));
      if (blocking.length === 0) return result;
      const open = blocking.filter((f) => !approved.approvals.has(f.id));
      return { ...result, decision: decide(open, result.min_severity) };
    },
    ...(evaluator.close ? { close: () => evaluator.close!() } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
