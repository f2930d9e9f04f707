// Reading a synthesized CDKTF stack (cdktf.out/stacks/<name>/cdk.tf.json): its managed resources, their
// Terraform addresses and the construct paths CDKTF records in each resource's "//" metadata.
import { join } from 'node:path';
import { UsageError } from '../errors/index.js';
import { readFileWithinSync } from '../fs/read-within.js';
import { JsonScanError, JsonScanner, valueNode } from '../plan/scanner/index.js';

export interface SynthesizedResource {
  /** `${type}.${name}`: the address `terraform plan` gives the resource (instances add [index]). */
  address: string;
  type: string;
  name: string;
  /** The construct path from `"//": {"metadata": {"path"}}`, when CDKTF recorded one. */
  constructPath: string | undefined;
}

/** Where CDKTF writes a stack: `<outdir>/stacks/<stack name>/cdk.tf.json`. */
export function synthesizedStackFile(outdir: string, stackName: string): string {
  return join(outdir, 'stacks', stackName, 'cdk.tf.json');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The managed resources of a synthesized stack's JSON ("//" comment keys skipped, as Terraform does). */
export function synthesizedResources(config: unknown, source: string): SynthesizedResource[] {
  if (!isRecord(config)) {
    throw new UsageError(
      'invalid_synthesized_stack',
      `${source} is not a CDKTF stack: expected a JSON object`,
    );
  }
  const resourceBlock = config.resource;
  if (resourceBlock === undefined) return [];
  if (!isRecord(resourceBlock)) {
    throw new UsageError(
      'invalid_synthesized_stack',
      `${source}: "resource" must be an object of resource types`,
    );
  }
  const resources: SynthesizedResource[] = [];
  for (const [type, byName] of Object.entries(resourceBlock)) {
    if (type === '//') continue;
    if (!isRecord(byName)) {
      throw new UsageError('invalid_synthesized_stack', `${source}: resource.${type} must be an object`);
    }
    for (const [name, body] of Object.entries(byName)) {
      if (name === '//') continue;
      const comment = isRecord(body) ? body['//'] : undefined;
      const metadata = isRecord(comment) ? comment.metadata : undefined;
      const path = isRecord(metadata) && typeof metadata.path === 'string' ? metadata.path : undefined;
      resources.push({ address: `${type}.${name}`, type, name, constructPath: path });
    }
  }
  return resources;
}

/** The `from` addresses of a synthesized stack's moved blocks: resources that move, not go. */
export function movedFromAddresses(config: unknown): Set<string> {
  const moved = isRecord(config) ? config.moved : undefined;
  const from = new Set<string>();
  if (!Array.isArray(moved)) return from;
  for (const block of moved) {
    if (isRecord(block) && typeof block.from === 'string' && typeof block.to === 'string')
      from.add(block.from);
  }
  return from;
}

/** The modules of a synthesized stack's JSON: `module.<name>` with the construct path of its "//" metadata. */
export function synthesizedModules(config: unknown): Array<{ address: string; constructPath: string }> {
  const moduleBlock = isRecord(config) ? config.module : undefined;
  if (!isRecord(moduleBlock)) return [];
  const modules: Array<{ address: string; constructPath: string }> = [];
  for (const [name, body] of Object.entries(moduleBlock)) {
    const comment = isRecord(body) ? body['//'] : undefined;
    const metadata = isRecord(comment) ? comment.metadata : undefined;
    if (name !== '//' && isRecord(metadata) && typeof metadata.path === 'string') {
      modules.push({ address: `module.${name}`, constructPath: metadata.path });
    }
  }
  return modules;
}

/**
 * Largest synthesized stack read (the previous synth, for destructions and construct paths): far above
 * what a stack synthesizes (a 10,000-resource stack is about 20 MB), and small enough to parse whole.
 */
export const MAX_SYNTHESIZED_BYTES = 64 * 1024 * 1024;

const REDO_HINT = 'delete it and synthesize again (cdktf synth), or point at the right cdktf.out directory';

/**
 * A JSON file read by the plan reader's scanner, keeping it all: at most `maxBytes`, bounded while
 * reading (a file that grows, a device or a pipe never fills memory), UTF-8 only (invalid bytes and a byte
 * order mark refused, not replaced), read as JSON.parse reads it. Not JSON.parse itself: on Node 24 and 26 it can read a key written
 * with an escape as another key (nodejs/node#63785). Undefined when the file does not exist; any other
 * problem names the file.
 */
export function readJsonFile(file: string, what: string, maxBytes: number, hint: string): unknown {
  let bytes: Buffer | undefined;
  try {
    bytes = readFileWithinSync(file, maxBytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError('file_unreadable', `cannot read ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (bytes === undefined) {
    throw new UsageError(
      'file_too_large',
      `${file} is larger than ${maxBytes} bytes, so tfgate does not read it`,
      {
        hint,
      },
    );
  }
  try {
    const scanner = new JsonScanner(valueNode(), { maxStringBytes: maxBytes, maxValueBytes: maxBytes });
    scanner.write(bytes, true);
    return scanner.end();
  } catch (error) {
    if (!(error instanceof JsonScanError)) throw error;
    throw new UsageError(`invalid_${what}`, `${file} is not valid JSON: ${error.message}`, {
      cause: error,
      hint,
    });
  }
}

/**
 * Read a synthesized stack file's JSON. Returns undefined when it does not exist (never synthesized); any
 * other problem (unreadable, too large, not UTF-8, not JSON) is an error that names the file.
 */
export function readSynthesizedConfig(file: string): unknown {
  return readJsonFile(file, 'synthesized_stack', MAX_SYNTHESIZED_BYTES, REDO_HINT);
}

/** The managed resources of a synthesized stack file, or undefined when the file does not exist. */
export function readSynthesizedStack(file: string): SynthesizedResource[] | undefined {
  const config = readSynthesizedConfig(file);
  return config === undefined ? undefined : synthesizedResources(config, file);
}
