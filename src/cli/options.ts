// Flags that several commands share, defined once so they keep the same names and help everywhere.
import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';
import { collect } from '../options/collect.js';

/** How check, plan and apply choose who decides: the service (--package) or a signed bundle, offline. */
export function addRouteOptions(command: Command): Command {
  return command
    .option(
      '--base-url <url>',
      'with --package: the tfgate service (env TFGATE_BASE_URL; key from TFGATE_API_KEY)',
    )
    .option('--ca-file <pem>', 'with --package: trust this CA for the service (or NODE_EXTRA_CA_CERTS)')
    .option('--bundle <bundle.tar.gz>', 'decide with this signed policy bundle, offline')
    .option('--public-key <pem>', 'platform public key that verifies the bundle (env TFGATE_PUBLIC_KEY)')
    .option(
      '--package <id>',
      'the service route: this package decides (with --bundle: refuse a bundle for another package)',
    )
    .option(
      '--timeout <seconds>',
      'with --package: wait this long for a response, and between response chunks',
    )
    .option(
      '--retries <n>',
      'with --package: retries on connection errors and 429/502/503/504 (default 3; env TFGATE_RETRIES)',
    )
    .option(
      '--account <name>',
      "with --bundle: refuse a bundle built for another account's package (env TFGATE_ACCOUNT)",
    )
    .option(
      '--allow-unsigned-bundle-INSECURE',
      'accept a bundle with no signature (INSECURE: for local experiments only; warned about every time)',
    );
}

/** Where the service is. The API key has no flag: it comes from TFGATE_API_KEY. */
export function addConnectionOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'the tfgate service (env TFGATE_BASE_URL)')
    .option('--ca-file <pem>', 'trust this CA for the service certificate (or NODE_EXTRA_CA_CERTS)');
}

/** The service connection of gate and bundle pull, with the wait and retry settings. */
export function addServiceOptions(command: Command): Command {
  return addConnectionOptions(command)
    .option('--timeout <seconds>', 'wait this long for a response, and between response chunks')
    .option(
      '--retries <n>',
      'retries on connection errors and 429/502/503/504 (default 3; env TFGATE_RETRIES)',
    );
}

/** `--min-severity`; `findings` says which findings count (e.g. "open findings" for the gate). */
export function addMinSeverityOption(command: Command, findings = 'findings'): Command {
  return command.option(
    '--min-severity <severity>',
    `block on ${findings} at or above: low|medium|high|critical (default low; env TFGATE_MIN_SEVERITY)`,
  );
}

/** `--report <format>=<file>`, or `--format` and `--output`: repeatable, paired one to one by position. */
export function addReportOptions(command: Command, options: { located?: boolean } = {}): Command {
  command
    .option(
      '--report <format[=file]>',
      'a report: text|json|markdown|sarif|junit, written to <file> or, without one, to stdout (repeatable: --report sarif=tfgate.sarif --report text)',
      collect,
    )
    .option('--format <format>', 'report format, as --report without a file (repeatable)', collect)
    .option(
      '--output <file>',
      'write the report of the --format at the same position to this file, - for stdout (repeatable; one per --format)',
      collect,
    );
  if (!options.located) return command;
  // For plan findings: what the reports' file locations are relative to.
  return command.option(
    '--repository-root <dir>',
    "report findings' file locations relative to this directory (default: the git work tree holding the configuration)",
  );
}

/** `--advisory`: `proceed` is what the command does instead of failing; `stillFails`, what still fails. */
export function addAdvisoryOption(command: Command, proceed: string, stillFails: string): Command {
  return command.option(
    '--advisory',
    `${proceed} on a block or when no decision can be reached, saying so loudly on stderr (env TFGATE_ADVISORY); ${stillFails} still fail`,
  );
}

/**
 * An option may be given more than once only when its values accumulate (a collector such as `--format`,
 * or a variadic `<values...>`). Any other option that takes a value keeps only its last one, so a repeat
 * would silently drop input (`--plan-json a.json --plan-json b.json` evaluated b.json alone).
 */
function takesOneValue(option: Option): boolean {
  const takesValue = option.required || option.optional;
  return takesValue && !option.variadic && option.parseArg !== collect;
}

/**
 * Every command under `command`: a single-value option given twice on the command line is a usage error
 * (exit 1) naming the flag. Checked in commander's own option event, before the value is stored, so it
 * holds for every command at once. Boolean flags may repeat: `--advisory --advisory` means what one does.
 */
export function refuseRepeatedOptions(command: Command): void {
  for (const option of command.options as readonly Option[]) {
    if (!takesOneValue(option)) continue;
    const key = option.attributeName();
    // commander's Command is an EventEmitter (its typings expose only on()): listening before commander's
    // own handler sees the value source before this occurrence is stored.
    (command as unknown as EventEmitter).prependListener(`option:${option.name()}`, (value: unknown) => {
      if (command.getOptionValueSource(key) !== 'cli') return;
      const flag = option.long ?? option.short ?? option.flags;
      // Quoted as JSON: an empty value or one with spaces reads unambiguously.
      const first = JSON.stringify(String(command.getOptionValue(key)));
      command.error(
        `error: ${flag} was given more than once (${first}, then ${JSON.stringify(String(value))}), but it takes one value and would keep only the last; give ${flag} once`,
        { code: 'tfgate.repeatedOption', exitCode: 1 },
      );
    });
  }
  for (const sub of command.commands) refuseRepeatedOptions(sub);
}
