// Flag groups several normalisers read the same way: severity, reports and advisory; the service connection;
// the key files.
import { UsageError } from '../../errors/index.js';
import { nonEmpty, reportTargetsFromFlags } from '../../options/common.js';
import type { GivenSettings } from './given.js';

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

/**
 * Flags win over the environment (TFGATE_MIN_SEVERITY, TFGATE_ADVISORY); `given` remembers which gave each,
 * so an error names the variable, and advisory mode's notices say `TFGATE_ADVISORY=1`, when it was that.
 */
export function decisionInput(flags: DecisionFlags, given: GivenSettings) {
  const advisory = given.boolean('advisory', flags.advisory, 'TFGATE_ADVISORY');
  const advisoryGivenAs = advisory ? given.givenAs('advisory') : undefined;
  return {
    minSeverity: given.text('minSeverity', flags.minSeverity, 'TFGATE_MIN_SEVERITY'),
    reports: reportTargetsFromFlags(flags.format, flags.output, flags.report),
    advisory,
    ...(advisoryGivenAs ? { advisoryGivenAs } : {}),
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

/** A key file's path, and the variable that named it when the environment did (the flag's name otherwise). */
export interface KeyFile {
  path: string;
  /** Set when the path came from the variable: messages about the file name it, not the flag. */
  givenAs?: string;
}

/**
 * A key file's path from its flag, else its variable. A value holding the key's text (a CI secret pasted
 * where the path goes) is refused without repeating it: it would be printed as a missing file's name, and a
 * private key on a command line lands in shell history and `ps` besides.
 */
export function keyFilePath(
  flag: { name: string; value: string | undefined },
  variable: { name: string; env: NodeJS.ProcessEnv },
): KeyFile | undefined {
  const fromFlag = flag.value;
  const value = fromFlag ?? nonEmpty(variable.env[variable.name]);
  if (value === undefined) return undefined;
  const source = fromFlag === undefined ? variable.name : flag.name;
  if (!value.includes('-----BEGIN'))
    return fromFlag === undefined ? { path: value, givenAs: variable.name } : { path: value };
  throw new UsageError(
    'key_text_not_path',
    `${source} holds a key's text, not the path of a key file (not shown)`,
    {
      hint: `write the key to a file (a private key: one only you can read, chmod 600) and give that file's path in ${source}`,
    },
  );
}

/**
 * --public-key, else TFGATE_PUBLIC_KEY, as the bundle route's options take it: the path, and the variable
 * when the environment named it (a missing file is then said as `TFGATE_PUBLIC_KEY=…`).
 */
export function publicKeyInput(flags: { publicKey?: string | undefined }, env: NodeJS.ProcessEnv) {
  const key = keyFilePath(
    { name: '--public-key', value: flags.publicKey },
    { name: 'TFGATE_PUBLIC_KEY', env },
  );
  return { publicKey: key?.path, ...(key?.givenAs ? { publicKeyGivenAs: key.givenAs } : {}) };
}

/** --account, else TFGATE_ACCOUNT: the account a bundle must be built for. */
export function accountInput(
  flags: { account?: string | undefined },
  env: NodeJS.ProcessEnv,
): string | undefined {
  return flags.account ?? nonEmpty(env.TFGATE_ACCOUNT);
}
