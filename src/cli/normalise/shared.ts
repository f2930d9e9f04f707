// Flag groups several normalisers read the same way: severity, reports and advisory; the service connection.
import { envBoolean, nonEmpty, reportTargetsFromFlags } from '../../options/common.js';

/** --min-severity, --report (or --format/--output), --advisory as commander hands them over. */
export interface DecisionFlags {
  minSeverity?: string;
  format?: string[];
  output?: string[];
  report?: string[];
  advisory?: boolean;
}

export const DECISION_FLAG_NAMES: Readonly<Record<string, string>> = {
  minSeverity: '--min-severity',
  reports: '--report/--format/--output',
  advisory: '--advisory',
};

/** Flags win over the environment (TFGATE_MIN_SEVERITY, TFGATE_ADVISORY). */
export function decisionInput(flags: DecisionFlags, env: NodeJS.ProcessEnv) {
  return {
    minSeverity: flags.minSeverity ?? nonEmpty(env.TFGATE_MIN_SEVERITY),
    reports: reportTargetsFromFlags(flags.format, flags.output, flags.report),
    advisory: flags.advisory ?? envBoolean(env, 'TFGATE_ADVISORY'),
  };
}

/** The service connection flags of gate and bundle pull (the key has no flag: TFGATE_API_KEY). */
export interface ServiceFlags {
  baseUrl?: string;
  caFile?: string;
  timeout?: string;
  retries?: string;
}

export function clientInput(flags: ServiceFlags) {
  return { baseUrl: flags.baseUrl, caFile: flags.caFile, timeout: flags.timeout, retries: flags.retries };
}
