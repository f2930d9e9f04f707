// Read stage, beside the plan: where each plan address is declared. Reads only the .tf and .tf.json files of
// the modules the addresses name (and the module manifest), bounded in bytes and time. A resource it cannot
// place (no manifest, a lexing problem, two declarations, a file outside the repository, time up) gets no
// location: a report without a line is better than one pointing at the wrong line.
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { readFileWithin } from '../fs/read-within.js';
import type { SourceLocation } from '../model/index.js';
import { parseResourceAddress } from './address.js';
import { findHclBlocks, type HclBlockStart } from './hcl-blocks.js';
import { findJsonBlocks, type JsonBlockStart } from './json-blocks.js';
import { readModulesManifest } from './modules-manifest.js';

export interface LocateLimits {
  /** Stop reading after this long; what is not placed by then has no location. */
  timeoutMs: number;
  /** A configuration file larger than this is not read. */
  maxFileBytes: number;
  /** Stop reading after this many bytes in all. */
  maxTotalBytes: number;
  /** A module directory with more configuration files than this is not read. */
  maxFilesPerModule: number;
}

export const DEFAULT_LOCATE_LIMITS: LocateLimits = {
  timeoutMs: 5_000,
  maxFileBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxFilesPerModule: 1_000,
};

export interface LocateOptions {
  /** The root module: the directory terraform runs in (its -chdir). */
  configDir: string;
  /** Locations are relative to this. Default: the git work tree holding configDir, else configDir. */
  repositoryRoot?: string;
  /** Terraform's data directory (TF_DATA_DIR), relative to configDir. Default `.terraform`. */
  dataDir?: string;
  limits?: Partial<LocateLimits>;
}

/** A block found in a module directory: where it is, or 'ambiguous' when declared more than once. */
type Declaration = { file: string; line: number; constructPath?: string } | 'ambiguous';

/** What one pass of locating keeps: the byte budget, the deadline and each module directory's index. */
class Reader {
  private spent = 0;
  private readonly deadline: number;
  private readonly indexes = new Map<string, Promise<Map<string, Declaration>>>();

  constructor(private readonly limits: LocateLimits) {
    this.deadline = Date.now() + limits.timeoutMs;
  }

  /** The blocks declared in the .tf and .tf.json files of `dir`, by `type label label`. */
  index(dir: string): Promise<Map<string, Declaration>> {
    let index = this.indexes.get(dir);
    if (!index) {
      index = this.build(dir);
      this.indexes.set(dir, index);
    }
    return index;
  }

  private async build(dir: string): Promise<Map<string, Declaration>> {
    const index = new Map<string, Declaration>();
    let names: string[];
    try {
      names = (await readdir(dir)).filter(isConfigurationFile).sort();
    } catch {
      return index;
    }
    if (names.length > this.limits.maxFilesPerModule) return index;
    for (const name of names) {
      if (Date.now() > this.deadline) return new Map();
      const file = join(dir, name);
      const blocks = await this.blocksOf(file);
      // A file that cannot be read leaves the whole module unplaced: its blocks might duplicate others.
      if (blocks === undefined) return new Map();
      for (const block of blocks) {
        const key = declarationKey(block.type, block.labels);
        const constructPath = (block as JsonBlockStart).constructPath;
        index.set(
          key,
          index.has(key)
            ? 'ambiguous'
            : { file, line: block.line, ...(constructPath !== undefined ? { constructPath } : {}) },
        );
      }
    }
    return index;
  }

  private async blocksOf(file: string): Promise<HclBlockStart[] | undefined> {
    try {
      const info = await stat(file);
      if (!info.isFile() || info.size > this.limits.maxFileBytes) return undefined;
      if (this.spent + info.size > this.limits.maxTotalBytes) return undefined;
      this.spent += info.size;
      const bytes = await readFileWithin(file, this.limits.maxFileBytes);
      if (bytes === undefined) return undefined;
      // Terraform reads configuration as UTF-8 and refuses anything else; so does this.
      const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
      return file.endsWith('.json') ? findJsonBlocks(text, this.limits.maxFileBytes) : findHclBlocks(text);
    } catch {
      return undefined;
    }
  }
}

/** Terraform's configuration files, less override files (they amend a block declared elsewhere). */
function isConfigurationFile(name: string): boolean {
  if (!name.endsWith('.tf') && !name.endsWith('.tf.json')) return false;
  const stem = name.replace(/\.tf(\.json)?$/, '');
  return stem !== 'override' && !stem.endsWith('_override') && !name.startsWith('.');
}

function declarationKey(type: string, labels: readonly string[]): string {
  return JSON.stringify([type, ...labels]);
}

/** The git work tree that holds `dir` (a `.git` directory or file, as in worktrees), if any. */
export async function findRepositoryRoot(dir: string): Promise<string | undefined> {
  for (let at = resolve(dir); ; ) {
    // existsSync: a rejected stat builds an Error per missing level, ~25 ms for 50 roots six levels deep.
    if (existsSync(join(at, '.git'))) return at;
    const parent = resolve(at, '..');
    if (parent === at) return undefined;
    at = parent;
  }
}

/** `file` relative to `root` with forward slashes, or undefined when it is not inside `root`. */
function repositoryPath(root: string, file: string): string | undefined {
  const path = relative(root, file);
  if (path === '' || isAbsolute(path) || path === '..' || path.startsWith(`..${sep}`)) return undefined;
  return path.split(sep).join('/');
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * Plan address -> where it is declared, for each address that can be placed. Never throws: locating only
 * adds to a report, so whatever goes wrong leaves addresses without a location.
 */
export async function locateAddresses(
  addresses: Iterable<string>,
  options: LocateOptions,
): Promise<Map<string, SourceLocation>> {
  const located = new Map<string, SourceLocation>();
  try {
    const configDir = resolve(options.configDir);
    const root = resolve(options.repositoryRoot ?? (await findRepositoryRoot(configDir)) ?? configDir);
    const dataDir = resolve(configDir, options.dataDir ?? '.terraform');
    const reader = new Reader({ ...DEFAULT_LOCATE_LIMITS, ...options.limits });
    // Read once, when the first module address needs it (undefined: none, or unreadable).
    let manifest: Promise<Map<string, string> | undefined> | undefined;
    for (const address of new Set(addresses)) {
      const declared = parseResourceAddress(address);
      if (!declared) continue;
      const resourceKey = declarationKey(declared.mode === 'data' ? 'data' : 'resource', [
        declared.type,
        declared.name,
      ]);
      let dir: string | undefined = configDir;
      let declaration: Declaration | undefined;
      let moduleCall: string | undefined;
      for (let depth = 0; depth < declared.modules.length && dir !== undefined; depth++) {
        manifest ??= readModulesManifest(configDir, dataDir);
        const moduleDir = (await manifest)?.get(declared.modules.slice(0, depth + 1).join('.'));
        // A module downloaded by init (registry, git) is not the repository's: point at its call instead.
        if (moduleDir !== undefined && (isInside(dataDir, moduleDir) || !repositoryPath(root, moduleDir))) {
          declaration = (await reader.index(dir)).get(
            declarationKey('module', [declared.modules[depth] as string]),
          );
          moduleCall = declared.modules
            .slice(0, depth + 1)
            .map((name) => `module.${name}`)
            .join('.');
          dir = undefined;
          break;
        }
        dir = moduleDir;
      }
      if (dir !== undefined) declaration = (await reader.index(dir)).get(resourceKey);
      if (declaration === undefined || declaration === 'ambiguous') continue;
      const file = repositoryPath(root, declaration.file);
      if (file === undefined) continue;
      located.set(address, {
        file,
        line: declaration.line,
        ...(moduleCall !== undefined ? { moduleCall } : {}),
        ...(declaration.constructPath !== undefined ? { constructPath: declaration.constructPath } : {}),
      });
    }
  } catch {
    // Locating is best effort; a report is never held up by it.
  }
  return located;
}
