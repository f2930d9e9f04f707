// `tfgate check` with many plans, the read stage's first half: which plans, each with its root name, its
// package (route) and where its configuration is. Plans come from repeated --plan-json/--plan-file (a file, a
// directory or a glob) and from a plan map (--plan-map, YAML or JSON); a pattern that matches nothing is a
// usage error, never a pass that judged nothing.
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { errorMessage, UsageError } from '../errors/index.js';
import { shownPath, withShownPath } from '../errors/shown.js';
import { readFileWithin } from '../fs/read-within.js';
import { packageIdSchema } from '../options/common.js';
import { expandPath, GLOB_CHARS } from './plan-files.js';
import type { PlanInputOption } from './plan-input.js';
import type { RouteOption } from './route.js';

/** One plan to judge: its name in the reports, how to read it, who decides, and where its configuration is. */
export interface PlanRoot {
  root: string;
  plan: PlanInputOption;
  route: RouteOption;
  /** The configuration the plan was made from: findings get file and line (the map's config_dir). */
  configDir?: string;
  /** Bytes this plan may hold in memory while read, for the evaluation budget (an estimate). */
  cost: number;
}

/** The route pieces a plan map entry completes: the service's address and the platform key. */
export interface RouteDefaults {
  baseUrl?: string | undefined;
  caFile?: string | undefined;
  publicKey?: string | undefined;
  /** The variable that named the key file (TFGATE_PUBLIC_KEY); absent: --public-key. */
  publicKeyGivenAs?: string | undefined;
  allowUnsigned: boolean;
  /** The account every bundle must be for (--account). */
  account?: string | undefined;
  /** The service route's --timeout and --retries, as given. */
  timeout?: string | undefined;
  retries?: string | undefined;
}

export interface PlanSetInput {
  /** From the flags: each path a file, a directory or a glob. */
  plans: readonly PlanInputOption[];
  /** A plan map file. */
  planMap?: string | undefined;
  /** The command line's route: for plans that name no package of their own. */
  route?: RouteOption | undefined;
  routeDefaults: RouteDefaults;
}

/** A saved plan is zipped; its JSON is far larger. An estimate for the memory budget. */
const PLAN_FILE_EXPANSION = 10;

const MAP_HINT =
  'a plan map is YAML or JSON: plans: [{plan_json: <file|dir|glob>} or {plan_file: ...}, with optional root, package, bundle, chdir, config_dir]';

/** Every plan to judge, in the order given (a directory's and a glob's matches sorted), each once. */
export async function resolvePlanSet(input: PlanSetInput): Promise<PlanRoot[]> {
  const entries: MapEntry[] = [];
  for (const plan of input.plans) {
    const flag = plan.kind === 'plan-json' ? '--plan-json' : '--plan-file';
    const route = input.route ?? missingRoute(plan.path);
    for (const { path, searched } of await expandPath(plan, flag)) {
      entries.push({
        ...(searched !== undefined ? { searched } : {}),
        plan:
          plan.kind === 'plan-file'
            ? { ...plan, path, chdir: plan.chdir ?? dirname(path) }
            : { ...plan, path },
        route,
        from: flag,
      });
    }
  }
  if (input.planMap) entries.push(...(await readPlanMap(input.planMap, input)));
  const seen = new Set<string>();
  const unique = entries.filter((entry) => {
    const key = `${entry.plan.path === '-' ? '-' : resolve(entry.plan.path)}\0${JSON.stringify(entry.route)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (unique.filter((e) => e.plan.path === '-').length > 1) {
    throw new UsageError('plan_input_required', 'stdin (-) can be read once: give it as one plan only', {
      hint: 'write the other plans to files',
    });
  }
  const names = rootNames(unique);
  return Promise.all(
    unique.map(async ({ from: _from, root: _root, searched: _searched, ...entry }, i) => ({
      ...entry,
      root: names[i] as string,
      cost: await planCost(entry.plan),
    })),
  );
}

function missingRoute(path: string): never {
  throw new UsageError('route_required', `no package decides the plan ${path}`, {
    hint: 'give --package <id> (the service) or --bundle <bundle.tar.gz> --public-key <pem>, or name a package for it in the --plan-map',
  });
}

/**
 * A root's name: the directory holding its plan, relative to the directory searched (a Terragrunt
 * --json-out-dir names each unit so) or else to the working directory ("." for it); where two plans share a
 * directory, their paths; the map's `root` when given. Names are unique.
 */
function rootNames(
  entries: ReadonlyArray<{ plan: PlanInputOption; root?: string; searched?: string }>,
): string[] {
  const posix = (p: string) => (p === '' ? '.' : p.split(sep).join('/'));
  const rel = (p: string, from?: string) => {
    const inside = from === undefined ? '' : relative(resolve(from), resolve(p));
    return inside === '' ? posix(relative(process.cwd(), resolve(p))) : posix(inside);
  };
  const byDirectory = entries.map(
    (e) =>
      e.root ??
      (e.plan.path === '-'
        ? 'stdin'
        : e.searched !== undefined
          ? rel(dirname(e.plan.path), e.searched)
          : rel(e.plan.kind === 'plan-file' ? (e.plan.chdir ?? dirname(e.plan.path)) : dirname(e.plan.path))),
  );
  const taken = new Map<string, number>();
  for (const name of byDirectory) taken.set(name, (taken.get(name) ?? 0) + 1);
  const names = entries.map((e, i) => {
    const name = byDirectory[i] as string;
    if (e.root !== undefined || (taken.get(name) ?? 0) === 1 || e.plan.path === '-') return name;
    return rel(e.plan.path, e.searched);
  });
  const used = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let n = 2; used.has(unique); n++) unique = `${name}#${n}`;
    used.add(unique);
    return unique;
  });
}

async function planCost(plan: PlanInputOption): Promise<number> {
  if (plan.path === '-') return 64 * 1024 * 1024;
  const size = await stat(plan.path).then(
    (s) => s.size,
    () => 0,
  );
  return plan.kind === 'plan-file' ? size * PLAN_FILE_EXPANSION : size;
}

/** Plan maps are small: a larger file is refused rather than read. */
const MAX_MAP_BYTES = 4 * 1024 * 1024;

type MapEntry = Omit<PlanRoot, 'root' | 'cost'> & { root?: string; searched?: string; from: string };

async function readPlanMap(file: string, input: PlanSetInput): Promise<MapEntry[]> {
  const bytes = await readFileWithin(file, MAX_MAP_BYTES).catch((error: unknown) => {
    throw new UsageError(
      'file_not_found',
      `--plan-map ${shownPath(file)} cannot be read: ${withShownPath(errorMessage(error), file)}`,
      {
        hint: 'check the path given to --plan-map',
        cause: error,
      },
    );
  });
  if (bytes === undefined) {
    throw new UsageError('invalid_plan_map', `--plan-map ${file} is larger than ${MAX_MAP_BYTES} bytes`, {
      hint: MAP_HINT,
    });
  }
  // Loaded on demand: only a plan map needs YAML.
  const { parseYamlText } = await import('../design/yaml-text.js');
  let document: unknown;
  try {
    // The yaml library, not JSON.parse (nodejs/node#63785): JSON is YAML, so either form is read the same way.
    document = parseYamlText(bytes.toString('utf8'));
  } catch (error) {
    throw new UsageError(
      'invalid_plan_map',
      `--plan-map ${file} is not YAML or JSON: ${(error as Error).message}`,
      {
        hint: MAP_HINT,
        cause: error,
      },
    );
  }
  const plans = isRecord(document) ? document.plans : undefined;
  if (!Array.isArray(plans) || plans.length === 0) {
    throw new UsageError('invalid_plan_map', `--plan-map ${file} has no "plans" list`, { hint: MAP_HINT });
  }
  const base = dirname(file);
  const entries: MapEntry[] = [];
  // A directory or glob passes over the plans an earlier entry named, so a last `*/plan.json` entry means
  // "every other plan". Naming one file in two entries is deliberate: it is judged under each.
  const named = new Set<string>();
  for (const [i, raw] of plans.entries()) {
    const at = `--plan-map ${file}: plans[${i}]`;
    const entry = mapEntry(raw, at);
    const planInput: PlanInputOption =
      entry.plan_json !== undefined
        ? { kind: 'plan-json', path: entry.plan_json }
        : { kind: 'plan-file', path: entry.plan_file as string };
    const paths = await expandPath(
      planInput,
      `${at}.${entry.plan_json !== undefined ? 'plan_json' : 'plan_file'}`,
      base,
    );
    if (entry.root !== undefined && paths.length > 1) {
      throw new UsageError('invalid_plan_map', `${at} names one root but matches ${paths.length} plans`, {
        hint: 'drop "root" (each plan is then named by its directory), or give each plan its own entry',
      });
    }
    const route = entryRoute(entry, at, base, input);
    const inBase = (p: string | undefined) =>
      p === undefined ? undefined : isAbsolute(p) ? p : join(base, p);
    const pattern = paths.length > 1 || paths[0]?.searched !== undefined || GLOB_CHARS.test(planInput.path);
    for (const { path, searched } of paths) {
      const key = path === '-' ? '-' : resolve(path);
      if (pattern && named.has(key)) continue;
      named.add(key);
      entries.push({
        ...(searched !== undefined && entry.root === undefined ? { searched } : {}),
        plan:
          planInput.kind === 'plan-file'
            ? { kind: 'plan-file', path, chdir: inBase(entry.chdir) ?? dirname(path) }
            : { kind: 'plan-json', path },
        route,
        ...(entry.root !== undefined ? { root: entry.root } : {}),
        ...(entry.config_dir !== undefined ? { configDir: inBase(entry.config_dir) as string } : {}),
        from: at,
      });
    }
  }
  return entries;
}

interface PlanMapEntry {
  plan_json?: string;
  plan_file?: string;
  root?: string;
  package?: string;
  bundle?: string;
  chdir?: string;
  config_dir?: string;
}

const ENTRY_KEYS = ['plan_json', 'plan_file', 'root', 'package', 'bundle', 'chdir', 'config_dir'] as const;

function mapEntry(raw: unknown, at: string): PlanMapEntry {
  if (!isRecord(raw)) throw new UsageError('invalid_plan_map', `${at} is not a mapping`, { hint: MAP_HINT });
  for (const key of Object.keys(raw)) {
    if (!(ENTRY_KEYS as readonly string[]).includes(key)) {
      throw new UsageError('invalid_plan_map', `${at} has an unknown key "${key}"`, {
        hint: `the keys are: ${ENTRY_KEYS.join(', ')}`,
      });
    }
    const value = raw[key];
    if (typeof value !== 'string' || value === '') {
      throw new UsageError('invalid_plan_map', `${at}.${key} must be a non-empty string`, { hint: MAP_HINT });
    }
  }
  const entry = raw as PlanMapEntry;
  if ((entry.plan_json === undefined) === (entry.plan_file === undefined)) {
    throw new UsageError('invalid_plan_map', `${at} needs exactly one of plan_json and plan_file`, {
      hint: MAP_HINT,
    });
  }
  if (entry.chdir !== undefined && entry.plan_file === undefined) {
    throw new UsageError('invalid_plan_map', `${at}.chdir is for plan_file only`, {
      hint: 'a plan JSON is read as it is; chdir is where `terraform show -json` runs for a saved plan',
    });
  }
  if (entry.package !== undefined && !packageIdSchema.safeParse(entry.package).success) {
    throw new UsageError('invalid_plan_map', `${at}.package "${entry.package}" is not a package id`, {
      hint: 'a package id is 1-63 of a-z 0-9 . _ - and starts with a letter or digit',
    });
  }
  return entry;
}

/**
 * Who decides an entry's plans: its own `bundle` (offline, verified with --public-key; its `package`, if given,
 * is the package the bundle must be for); else its `package` on the service; else the command line's route.
 * A `package` alone while the command line is offline (--bundle) is refused: which bundle is meant would be a guess.
 */
function entryRoute(entry: PlanMapEntry, at: string, base: string, input: PlanSetInput): RouteOption {
  const { routeDefaults: defaults } = input;
  if (entry.bundle !== undefined) {
    if (defaults.publicKey === undefined && !defaults.allowUnsigned) {
      throw new UsageError(
        'route_required',
        `${at} names a bundle: it is verified with the platform public key`,
        {
          hint: 'pass --public-key <pem> (or set TFGATE_PUBLIC_KEY)',
        },
      );
    }
    return {
      kind: 'bundle',
      bundle: isAbsolute(entry.bundle) ? entry.bundle : join(base, entry.bundle),
      ...(defaults.publicKey !== undefined ? { publicKey: defaults.publicKey } : {}),
      ...(defaults.publicKeyGivenAs !== undefined ? { publicKeyGivenAs: defaults.publicKeyGivenAs } : {}),
      allowUnsigned: defaults.allowUnsigned,
      ...(entry.package !== undefined ? { packageId: entry.package } : {}),
      ...(defaults.account !== undefined ? { account: defaults.account } : {}),
    };
  }
  if (entry.package !== undefined) {
    if (input.route?.kind === 'bundle') {
      throw new UsageError(
        'route_required',
        `${at} names package ${entry.package} but no bundle, and the command line is offline (--bundle)`,
        {
          hint: `give the entry its bundle: (e.g. bundle: bundles/${entry.package}.tar.gz), or decide on the service with --package`,
        },
      );
    }
    return {
      kind: 'remote',
      packageId: entry.package,
      ...(defaults.baseUrl !== undefined ? { baseUrl: defaults.baseUrl } : {}),
      ...(defaults.caFile !== undefined ? { caFile: defaults.caFile } : {}),
      ...(defaults.timeout !== undefined ? { timeout: defaults.timeout } : {}),
      ...(defaults.retries !== undefined ? { retries: defaults.retries } : {}),
    };
  }
  return input.route ?? missingRoute(entry.plan_json ?? entry.plan_file ?? at);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
