// What the commands hand the reports: the findings' source locations and, for findings without one, the plan
// JSON file when it is in the repository (code scanning needs a file for every result).
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { SourceLocation } from '../model/index.js';
import { findRepositoryRoot, locateAddresses } from './locator.js';

export interface ReportLocationOptions {
  /** The configuration the plan was made from (terraform's working directory); without it nothing is located. */
  configDir?: string | undefined;
  /** Locations are relative to this; default: the git work tree of configDir (or of the plan file). */
  repositoryRoot?: string | undefined;
  /** `check --plan-json <file>`: the fallback for findings without a location, when inside the repository. */
  planJsonFile?: string | undefined;
  /** TF_DATA_DIR moves `.terraform` (and its modules.json). */
  env?: NodeJS.ProcessEnv | undefined;
}

export interface ReportLocations {
  locations: Map<string, SourceLocation>;
  fallbackFile?: string;
  /** The configuration's directory relative to the repository ("." for its root), when inside it. */
  fallbackDirectory?: string;
}

/** Locate `addresses` for the reports; never throws (a report without lines is still a report). */
export async function locateForReport(
  addresses: Iterable<string>,
  options: ReportLocationOptions,
): Promise<ReportLocations> {
  const anchor = options.configDir ?? (options.planJsonFile ? dirname(options.planJsonFile) : undefined);
  if (anchor === undefined) return { locations: new Map() };
  const root = resolve(options.repositoryRoot ?? (await findRepositoryRoot(anchor)) ?? anchor);
  const locations =
    options.configDir === undefined
      ? new Map<string, SourceLocation>()
      : await locateAddresses(addresses, {
          configDir: options.configDir,
          repositoryRoot: root,
          ...(options.env?.TF_DATA_DIR ? { dataDir: options.env.TF_DATA_DIR } : {}),
        });
  const plan = inRepository(root, options.planJsonFile);
  const directory = inRepository(root, options.configDir);
  return {
    locations,
    ...(plan !== undefined && plan !== '.' ? { fallbackFile: plan } : {}),
    ...(directory !== undefined ? { fallbackDirectory: directory } : {}),
  };
}

/** `path` relative to the repository root with forward slashes ("." for the root), or undefined outside it. */
function inRepository(root: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const rel = relative(root, resolve(path));
  if (isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) return undefined;
  return rel === '' ? '.' : rel.split(sep).join('/');
}
