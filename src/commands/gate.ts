// `tfgate gate`: the release-job gate. It asks the service with fail_status=true: a 409 is a block whatever
// its body; a 200 is a pass only with the contract's gate result saying so, else no decision.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { clientFlagsSchema, type GateOutcome, ServiceClient, type TransportDeps } from '../client/index.js';
import { ADVISORY_CONSEQUENCE, advisoryNotice, ExitCode } from '../errors/index.js';
import type { GateResult } from '../model/index.js';
import {
  advisoryGivenAsSchema,
  advisorySchema,
  minSeveritySchema,
  packageIdSchema,
  reportTargetsSchema,
} from '../options/common.js';
import type { ReportSubject } from '../report/subject.js';
import { emitReports } from '../report/targets.js';
import { summaryLine } from '../report/view.js';
import * as z from '../schemas/zod.js';
import { reportOutputs, requireOutputs, requireOutputsApartFromInputs } from './input-files.js';
import { untilInterrupted } from './interruptible.js';
import type { CommandIo } from './io.js';
import { type NoDecisionTarget, settingsOrNoDecision, withoutDecision } from './no-decision.js';

export const gateOptionsSchema = z.object({
  packageId: packageIdSchema,
  minSeverity: minSeveritySchema,
  refresh: z._default(z.boolean(), false),
  advisory: advisorySchema,
  advisoryGivenAs: advisoryGivenAsSchema,
  reports: reportTargetsSchema,
  client: clientFlagsSchema,
  /**
   * The package's design file in the repository: drift findings have no line in the configuration, so SARIF
   * places them on it (GitHub code scanning needs a file for every result). Default: the repository root.
   */
  designFile: z.optional(z.string().check(z.minLength(1))),
});
export type GateOptions = z.output<typeof gateOptionsSchema>;

export interface GateContext extends CommandIo {
  /** For tests of faults only. */
  transport?: TransportDeps;
}

export interface GateCommandOutcome {
  /** 0 pass (or advisory), 3 blocked. No decision is a thrown TfgateError (exit 4), unless advisory. */
  exitCode: ExitCode;
  /** Undefined only in advisory mode when no decision could be reached (stderr says why). */
  result: GateResult | undefined;
  detailsUnavailable?: string;
}

/** The design file relative to its repository (the git work tree holding it, else the working directory). */
async function designArtifact(file: string): Promise<{ fallbackFile?: string }> {
  const { findRepositoryRoot } = await import('../locate/index.js');
  const root = resolve((await findRepositoryRoot(dirname(resolve(file)))) ?? process.cwd());
  const path = relative(root, resolve(file));
  if (path === '' || isAbsolute(path) || path === '..' || path.startsWith(`..${sep}`)) return {};
  return { fallbackFile: path.split(sep).join('/') };
}

export async function runGate(options: GateOptions, context: GateContext): Promise<GateCommandOutcome> {
  const target: NoDecisionTarget = {
    reports: options.reports,
    about: { of: 'gate', packageId: options.packageId, minSeverity: options.minSeverity },
    stderr: context.stderr,
  };
  return untilInterrupted((interrupted) => gateOnce(options, { ...context, interrupted }, target), {
    ...target,
    during: 'the gate call',
  });
}

async function gateOnce(
  options: GateOptions,
  context: GateContext,
  target: NoDecisionTarget,
): Promise<GateCommandOutcome> {
  // Where the reports go, before the service is asked: a decision is never lost to a path that cannot be written.
  const outputs = reportOutputs(options.reports);
  requireOutputs(outputs);
  const caFile = options.client.caFile;
  requireOutputsApartFromInputs(outputs, caFile === undefined ? [] : [{ flag: '--ca-file', path: caFile }]);
  const client = await settingsOrNoDecision(
    () =>
      ServiceClient.fromOptions(options.client, context.env, {
        notice: (message) => context.stderr.write(`${message}\n`),
        ...context.transport,
      }),
    target,
  );
  try {
    let outcome: GateOutcome;
    try {
      outcome = await client.gate(options.packageId, {
        minSeverity: options.minSeverity,
        refresh: options.refresh,
      });
    } catch (error) {
      // No decision (service unreachable, an answer it cannot decide from, a timeout): the report files say
      // so; advisory mode notes it and exits 0.
      const exitCode = await withoutDecision(error, {
        ...target,
        advisory: options.advisory,
        advisoryGivenAs: options.advisoryGivenAs,
      });
      return { result: undefined, exitCode };
    }
    const subject: ReportSubject = {
      kind: 'gate',
      result: outcome.result,
      advisory: options.advisory,
      advisoryGivenAs: options.advisoryGivenAs,
      ...(outcome.detailsUnavailable ? { detailsUnavailable: outcome.detailsUnavailable } : {}),
      ...(options.designFile ? await designArtifact(options.designFile) : {}),
    };
    await emitReports(subject, options.reports, context);
    const base = {
      result: outcome.result,
      ...(outcome.detailsUnavailable ? { detailsUnavailable: outcome.detailsUnavailable } : {}),
    };
    if (outcome.decision === 'pass') return { exitCode: ExitCode.ok, ...base };
    if (options.advisory) {
      const summary = summaryLine({ ...subject, advisory: false });
      const notice = advisoryNotice(
        { kind: 'gate-would-block', summary },
        ADVISORY_CONSEQUENCE.exitZero,
        options.advisoryGivenAs,
      );
      context.stderr.write(`${notice}\n`);
      return { exitCode: ExitCode.ok, ...base };
    }
    return { exitCode: ExitCode.blocked, ...base };
  } finally {
    await client.close();
  }
}
