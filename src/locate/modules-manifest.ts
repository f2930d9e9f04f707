// Where each module of a configuration lives, from the manifest `terraform init` and `tofu init` both write:
// <data dir>/modules/modules.json = {"Modules": [{"Key": "app.inner", "Source": "../inner", "Dir": "modules/inner"}]}.
// Keys join the module call names from the root with dots; Dir is relative to the root module's directory.
// The file is untrusted input: read bounded, by the untrusted-JSON reader, and checked field by field.
import { join, resolve } from 'node:path';
import { readFileWithin } from '../fs/read-within.js';
import { parseUntrustedJson } from '../json/untrusted.js';

/** A manifest larger than this is not read (thousands of modules take well under a megabyte). */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/**
 * Module key (`app.inner`; "" for the root) -> absolute directory. Undefined when there is no manifest (no
 * `init` yet, or no modules) or it cannot be read as one: then only the root module can be located.
 */
export async function readModulesManifest(
  configDir: string,
  dataDir: string,
  maxBytes = MAX_MANIFEST_BYTES,
): Promise<Map<string, string> | undefined> {
  const file = join(resolve(configDir, dataDir), 'modules', 'modules.json');
  let bytes: Buffer | undefined;
  try {
    bytes = await readFileWithin(file, maxBytes);
  } catch {
    return undefined;
  }
  if (bytes === undefined) return undefined;
  let manifest: unknown;
  try {
    manifest = parseUntrustedJson(bytes, maxBytes);
  } catch {
    return undefined;
  }
  const modules =
    typeof manifest === 'object' && manifest !== null
      ? (manifest as { Modules?: unknown }).Modules
      : undefined;
  if (!Array.isArray(modules)) return undefined;
  const dirs = new Map<string, string>();
  for (const entry of modules) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { Key: key, Dir: dir } = entry as { Key?: unknown; Dir?: unknown };
    if (typeof key !== 'string' || typeof dir !== 'string' || dir === '' || dir.includes('\0')) continue;
    // Two entries for one key cannot both be right: neither is used.
    if (dirs.has(key)) dirs.set(key, '');
    else dirs.set(key, resolve(configDir, dir));
  }
  for (const [key, dir] of dirs) if (dir === '') dirs.delete(key);
  return dirs;
}
