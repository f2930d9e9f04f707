// Where each report goes: `--report <format>=<file>`, or `--format` and `--output` paired one to one by position;
// a report without a file goes to stdout.
import { UsageError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { REPORT_FORMATS, type ReportFormat } from './formats.js';
import { githubAnnotationsEnabled, renderGithubAnnotations } from './github.js';
import type { AnyReportSubject, NoDecisionReport } from './subject.js';

export interface ReportTarget {
  format: ReportFormat;
  /** A file path; undefined or "-" is stdout. */
  path?: string;
}

export function parseReportFormat(value: string): ReportFormat {
  if ((REPORT_FORMATS as readonly string[]).includes(value)) return value as ReportFormat;
  throw new UsageError('invalid_format', `unknown report format "${value}"`, {
    hint: `use one of: ${REPORT_FORMATS.join(', ')}`,
  });
}

/**
 * Pair formats with outputs by position: `--format text --format sarif --output - --output r.sarif`.
 * The pairing must be one to one (or a lone --format with no --output, which prints): with two formats and
 * one output, which report goes to the file is a guess, and `--format json --format sarif --output out.sarif`
 * used to write JSON into out.sarif.
 */
export function reportTargets(formats: readonly string[], outputs: readonly string[]): ReportTarget[] {
  const chosen = formats.length > 0 ? formats.map(parseReportFormat) : (['text'] as ReportFormat[]);
  const lonePrint = outputs.length === 0 && formats.length <= 1;
  if (!lonePrint && outputs.length !== formats.length) {
    throw new UsageError(
      'invalid_output',
      `${formats.length} --format and ${outputs.length} --output given; they pair one to one by position, so which report goes where would be a guess`,
      {
        hint: 'give each --format its own --output (- for stdout), or name each report with --report <format>=<file> (e.g. --report sarif=tfgate.sarif --report text)',
      },
    );
  }
  return chosen.map((format, i) => target(format, outputs[i]));
}

/** `--report sarif=out.sarif` (a file) or `--report text` / `--report text=-` (stdout), repeatable. */
export function reportTargetsFromSpecs(specs: readonly string[]): ReportTarget[] {
  return specs.map((spec) => {
    const eq = spec.indexOf('=');
    const format = eq === -1 ? spec : spec.slice(0, eq);
    const path = eq === -1 ? undefined : spec.slice(eq + 1);
    if (path === '') {
      throw new UsageError('invalid_output', `--report ${spec} names no file after "="`, {
        hint: `write --report ${format}=<file>, or --report ${format} for stdout`,
      });
    }
    return target(parseReportFormat(format), path);
  });
}

function target(format: ReportFormat, path: string | undefined): ReportTarget {
  return path === undefined || path === '-' ? { format } : { format, path };
}

export interface EmitOptions {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  /**
   * Where GitHub annotations go when stdout holds a JSON, SARIF or JUnit report, which they would corrupt (the
   * runner reads workflow commands on stderr too). Without it they are left out then.
   */
  stderr?: { write(chunk: string): unknown };
  /** Colour for stdout only; files never get escape codes. */
  color: boolean;
  env?: NodeJS.ProcessEnv;
  /** Set once the run was interrupted: nothing more is written (the interrupt's "no decision" reports stand). */
  interrupted?: () => Error | undefined;
}

let renderers: Promise<typeof import('./registry.js')> | undefined;

/**
 * Load the renderers now (they load on the first emitReports otherwise): a command that waits on something
 * else meanwhile, as `tfgate apply` on terraform's plan, has them ready when its decision is.
 */
export function loadRenderers(): Promise<typeof import('./registry.js')> {
  renderers ??= import('./registry.js').catch((error: unknown) => {
    renderers = undefined; // a failed load is tried again by the next caller, not remembered
    throw error;
  });
  return renderers;
}

/** Reports a program reads: nothing else may be written where one goes. */
const MACHINE_READ: ReadonlySet<ReportFormat> = new Set(['json', 'sarif', 'junit']);

/**
 * Render every target, plus GitHub annotations when running in GitHub Actions: on stdout, or on stderr when
 * a report a program reads is on stdout.
 */
export async function emitReports(
  subject: AnyReportSubject,
  targets: readonly ReportTarget[],
  options: EmitOptions,
): Promise<void> {
  const { renderReport } = await loadRenderers();
  for (const target of targets) {
    const interrupted = options.interrupted?.();
    if (interrupted) throw interrupted;
    if (target.path === undefined) {
      options.stdout.write(renderReport(subject, target.format, { color: options.color }));
    } else {
      await writeReportFile(target.path, renderReport(subject, target.format, { color: false }));
    }
  }
  if (githubAnnotationsEnabled(options.env ?? process.env)) {
    const stdoutRead = targets.some((t) => t.path === undefined && MACHINE_READ.has(t.format));
    (stdoutRead ? options.stderr : options.stdout)?.write(renderGithubAnnotations(subject));
  }
}

function writeReportFile(path: string, content: string): Promise<void> {
  return writeFileAtomic(path, content, {
    code: 'output_not_written',
    what: 'the report',
    hint: 'check that the directory exists and is writable',
  });
}

/**
 * One plan or one gate without a decision: each report file says so, so none keeps an earlier run's result for
 * a later step to publish. Stdout is left to the error on stderr. Every file is tried; the failures are
 * returned (the run fails for want of a decision either way).
 */
export async function writeNoDecisionReports(
  report: NoDecisionReport,
  targets: readonly ReportTarget[],
): Promise<unknown[]> {
  const files = targets.filter((t) => t.path !== undefined);
  if (files.length === 0) return [];
  const { renderReport } = await loadRenderers();
  const failures: unknown[] = [];
  for (const target of files) {
    if (target.path === undefined) continue;
    await writeReportFile(target.path, renderReport(report, target.format, { color: false })).catch(
      (error: unknown) => failures.push(error),
    );
  }
  return failures;
}
