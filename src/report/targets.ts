// Where each report goes: `--format` and `--output` pair up by position; a format without a file goes to stdout.
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors/index.js';
import { githubAnnotationsEnabled, renderGithubAnnotations } from './github.js';
import { REPORT_FORMATS, type ReportFormat, renderReport } from './index.js';
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

/** What a failed atomic write says: its error code, what the file is, and how to fix it. */
export interface WriteFailure {
  code: string;
  what: string;
  hint: string;
}

/**
 * Write a file whole or not at all: a temporary file beside it, then rename. Fails as a UsageError. `mode`
 * applies from the first byte (the temporary file is created with it), e.g. 0o600 for owner-only files.
 */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  failure: WriteFailure,
  mode = 0o644,
): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, { mode, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    // Name the file the user asked for, not the temporary one.
    const reason = String((error as Error).message).replaceAll(temp, path);
    throw new UsageError(failure.code, `could not write ${failure.what} ${path}: ${reason}`, {
      hint: failure.hint,
      cause: error,
    });
  }
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
