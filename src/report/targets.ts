// Where each report goes: `--format` and `--output` pair up by position; a format without a file goes to stdout.
import { UsageError } from '../errors/index.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { githubAnnotationsEnabled, renderGithubAnnotations } from './github.js';
import { REPORT_FORMATS, type ReportFormat, renderReport } from './registry.js';
import type { ReportSubject } from './subject.js';

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

/** Pair formats with outputs by position: `--format text --format sarif --output - --output r.sarif`. */
export function reportTargets(formats: readonly string[], outputs: readonly string[]): ReportTarget[] {
  const chosen = formats.length > 0 ? formats.map(parseReportFormat) : (['text'] as ReportFormat[]);
  if (outputs.length > chosen.length) {
    throw new UsageError(
      'invalid_output',
      `${outputs.length} --output given for ${chosen.length} --format; each --output belongs to the --format at the same position`,
      { hint: 'add a --format for each --output, e.g. --format sarif --output tfgate.sarif' },
    );
  }
  return chosen.map((format, i) => {
    const path = outputs[i];
    return path === undefined || path === '-' ? { format } : { format, path };
  });
}

export interface EmitOptions {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  /** Colour for stdout only; files never get escape codes. */
  color: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Render every target, plus GitHub annotations on stdout when running in GitHub Actions. */
export async function emitReports(
  subject: ReportSubject,
  targets: readonly ReportTarget[],
  options: EmitOptions,
): Promise<void> {
  for (const target of targets) {
    if (target.path === undefined) {
      options.stdout.write(renderReport(subject, target.format, { color: options.color }));
    } else {
      await writeFileAtomic(target.path, renderReport(subject, target.format, { color: false }), {
        code: 'output_not_written',
        what: 'the report',
        hint: 'check that the directory exists and is writable',
      });
    }
  }
  if (githubAnnotationsEnabled(options.env ?? process.env)) {
    options.stdout.write(renderGithubAnnotations(subject));
  }
}
