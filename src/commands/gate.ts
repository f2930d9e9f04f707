// `tfgate gate`: the release-job gate. It asks the service with fail_status=true and trusts the status
// (200 pass, 409 blocked), so it works against any implementation of the interface.
import { z } from 'zod';
import {
  CLIENT_FLAG_NAMES,
  clientFlagsSchema,
  type GateOutcome,
  ServiceClient,
  type TransportDeps,
} from '../client/index.js';
import { ExitCode } from '../errors/index.js';
import type { GateResult } from '../model/index.js';
import {
  advisorySchema,
  envBoolean,
  minSeveritySchema,
  nonEmpty,
  packageIdSchema,
  parseOptions,
  reportTargetsFromFlags,
  reportTargetsSchema,
} from '../options/common.js';
import { emitReports, type ReportSubject, summaryLine } from '../report/index.js';
import { advisoryWithoutDecision } from './advisory.js';

export const gateOptionsSchema = z.object({
  packageId: packageIdSchema,
  minSeverity: minSeveritySchema,
  refresh: z.boolean().default(false),
  advisory: advisorySchema,
  reports: reportTargetsSchema,
  client: clientFlagsSchema,
});
export type GateOptions = z.input<typeof gateOptionsSchema>;

/** The flags as commander hands them over. There is no key flag: the key comes from TFGATE_API_KEY. */
export interface GateFlags {
  package?: string;
  minSeverity?: string;
  refresh?: boolean;
  advisory?: boolean;
  format?: string[];
  output?: string[];
  baseUrl?: string;
  caFile?: string;
  timeout?: string;
  retries?: string;
}

const FLAG_NAMES: Record<string, string> = {
  ...CLIENT_FLAG_NAMES,
  packageId: '--package',
  minSeverity: '--min-severity',
  reports: '--format/--output',
};

export function resolveGateOptions(
  flags: GateFlags,
  env: NodeJS.ProcessEnv,
): z.output<typeof gateOptionsSchema> {
  return parseOptions(
    gateOptionsSchema,
    {
      packageId: flags.package ?? nonEmpty(env.TFGATE_PACKAGE),
      minSeverity: flags.minSeverity ?? nonEmpty(env.TFGATE_MIN_SEVERITY),
      refresh: flags.refresh ?? false,
      advisory: flags.advisory ?? envBoolean(env, 'TFGATE_ADVISORY'),
      reports: reportTargetsFromFlags(flags.format, flags.output),
      client: {
        baseUrl: flags.baseUrl,
        caFile: flags.caFile,
        timeout: flags.timeout,
        retries: flags.retries,
      },
    },
    FLAG_NAMES,
  );
}

export interface GateContext {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown };
  env: NodeJS.ProcessEnv;
  color: boolean;
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

export async function runGate(input: GateOptions, context: GateContext): Promise<GateCommandOutcome> {
  const options = gateOptionsSchema.parse(input);
  const client = await ServiceClient.fromOptions(options.client, context.env, context.transport);
  try {
    let outcome: GateOutcome;
    try {
      outcome = await client.gate(options.packageId, {
        minSeverity: options.minSeverity,
        refresh: options.refresh,
      });
    } catch (error) {
      // No decision (service unreachable, 401/403/404, a timeout): advisory mode notes it and exits 0.
      return {
        result: undefined,
        exitCode: advisoryWithoutDecision(error, { advisory: options.advisory, stderr: context.stderr }),
      };
    }
    const subject: ReportSubject = {
      kind: 'gate',
      result: outcome.result,
      advisory: options.advisory,
      ...(outcome.detailsUnavailable ? { detailsUnavailable: outcome.detailsUnavailable } : {}),
    };
    await emitReports(subject, options.reports, context);
    const base = {
      result: outcome.result,
      ...(outcome.detailsUnavailable ? { detailsUnavailable: outcome.detailsUnavailable } : {}),
    };
    if (outcome.decision === 'pass') return { exitCode: ExitCode.ok, ...base };
    if (options.advisory) {
      context.stderr.write(
        `ADVISORY MODE: the gate WOULD HAVE BLOCKED this release (${summaryLine({ ...subject, advisory: false })}); exiting 0 because --advisory was given\n`,
      );
      return { exitCode: ExitCode.ok, ...base };
    }
    return { exitCode: ExitCode.blocked, ...base };
  } finally {
    await client.close();
  }
}
