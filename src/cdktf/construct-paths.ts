// `tfgate apply --cdktf-stack <name>`: map a plan's addresses back to the constructs that define them,
// using the "//" metadata CDKTF writes on every resource and module of cdktf.out/stacks/<name>/cdk.tf.json.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors/index.js';
import { shownPath } from '../errors/shown.js';
import {
  readJsonFile,
  readSynthesizedConfig,
  synthesizedModules,
  synthesizedResources,
  synthesizedStackFile,
} from './synthesized-stack.js';

/** CDKTF's default output directory, as cdktf.json's `output` defaults to. */
export const DEFAULT_CDKTF_OUTDIR = 'cdktf.out';

/** Instance keys: [0], ["a"], ["a]b"]. */
const INSTANCE_KEY = /\[(?:"(?:[^"\\]|\\.)*"|[^\]"]*)\]/g;

function availableStacks(outdir: string): string[] {
  try {
    return readdirSync(join(outdir, 'stacks'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * Address -> construct path for one synthesized stack: `type.name` for each resource, and `module.name`
 * for each module (a module's own resources are mapped to the module's construct).
 * Throws a UsageError naming the stacks that exist when `stackName` was not synthesized.
 */
export function readConstructPaths(outdir: string, stackName: string): Map<string, string> {
  const dir = resolve(outdir);
  const file = synthesizedStackFile(dir, stackName);
  const config = readSynthesizedConfig(file);
  if (config === undefined) {
    const stacks = availableStacks(dir);
    throw new UsageError(
      'cdktf_stack_not_found',
      `no synthesized CDKTF stack ${JSON.stringify(stackName)}: ${shownPath(file)} does not exist` +
        (stacks.length > 0 ? ` (stacks in ${dir}: ${stacks.join(', ')})` : ''),
      {
        hint: existsSync(dir)
          ? 'use a stack name that `cdktf list` shows, and run `cdktf synth` before `tfgate apply`'
          : `run \`cdktf synth\` first, or point at the output directory (cdktf.json "output", default ${DEFAULT_CDKTF_OUTDIR})`,
      },
    );
  }
  const paths = new Map<string, string>();
  for (const resource of synthesizedResources(config, file)) {
    if (resource.constructPath !== undefined) paths.set(resource.address, resource.constructPath);
  }
  for (const module of synthesizedModules(config)) paths.set(module.address, module.constructPath);
  return paths;
}

/** The construct path of one plan address (instances and module contents included), if any. */
export function constructPathOf(paths: ReadonlyMap<string, string>, planAddress: string): string | undefined {
  const base = planAddress.replace(INSTANCE_KEY, '');
  const direct = paths.get(base);
  if (direct !== undefined) return direct;
  const module = /^module\.([^.]+)\./.exec(base);
  return module ? paths.get(`module.${module[1]}`) : undefined;
}

/**
 * What `tfgate apply --cdktf-stack <name>` puts in ReportSubject.constructPaths: each of the plan's
 * addresses that maps to a construct, with that construct's path.
 */
export function constructPathsForPlan(
  outdir: string,
  stackName: string,
  planAddresses: Iterable<string>,
): Map<string, string> {
  const paths = readConstructPaths(outdir, stackName);
  const mapped = new Map<string, string>();
  for (const address of planAddresses) {
    const path = constructPathOf(paths, address);
    if (path !== undefined) mapped.set(address, path);
  }
  return mapped;
}

/** A synthesized CDKTF stack that `tfgate apply --cdktf-stack <name>` plans and reports on. */
export interface CdktfStackTarget {
  stack: string;
  /** The app's output directory (absolute). */
  outdir: string;
  /** Where terraform runs for this stack: `<outdir>/stacks/<name>` (what `cdktf deploy` uses). */
  workingDirectory: string;
  /** Plan address -> construct path for the given addresses (ReportSubject.constructPaths). */
  constructPaths(planAddresses: Iterable<string>): Map<string, string>;
}

/** cdktf.json's "output" in `projectDir`, else cdktf.out; relative to the project directory. */
function projectOutdir(projectDir: string): string {
  const configFile = join(projectDir, 'cdktf.json');
  const config = readJsonFile(
    configFile,
    'cdktf_json',
    1024 * 1024,
    'fix or remove it: tfgate reads its "output"',
  );
  if (config === undefined) return resolve(projectDir, DEFAULT_CDKTF_OUTDIR);
  const output =
    typeof config === 'object' && config !== null ? (config as { output?: unknown }).output : undefined;
  return resolve(dirname(configFile), typeof output === 'string' && output ? output : DEFAULT_CDKTF_OUTDIR);
}

/**
 * Resolve `--cdktf-stack <name>` (with an optional `--cdktf-out <dir>`): the stack must have been
 * synthesized. `projectDir` is where cdktf.json lives (default: the current directory).
 */
export function resolveCdktfStack(
  stack: string,
  options: { outdir?: string | undefined; projectDir?: string | undefined } = {},
): CdktfStackTarget {
  const projectDir = resolve(options.projectDir ?? process.cwd());
  const outdir =
    options.outdir === undefined ? projectOutdir(projectDir) : resolve(projectDir, options.outdir);
  const paths = readConstructPaths(outdir, stack);
  return {
    stack,
    outdir,
    workingDirectory: join(outdir, 'stacks', stack),
    constructPaths(planAddresses) {
      const mapped = new Map<string, string>();
      for (const address of planAddresses) {
        const path = constructPathOf(paths, address);
        if (path !== undefined) mapped.set(address, path);
      }
      return mapped;
    },
  };
}
