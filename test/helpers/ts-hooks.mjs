// Module hooks that run tfgate's TypeScript sources directly in a child process (no build step):
// `./x.js` imports resolve to `./x.ts`, and .ts files are transpiled with TypeScript's transpileModule.
// Synchronous, for module.registerHooks (Node >= 22.15): module.register(), the off-thread loader, is
// deprecated from Node 26 on (DEP0205) and prints a warning into every child's stderr.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Transpiled output is cached by content hash, so each child process after the first starts fast.
const CACHE_DIR = join(tmpdir(), 'tfgate-ts-cache');
const require = createRequire(import.meta.url);
let ts;

export function resolve(specifier, context, next) {
  try {
    return next(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
    if (relative && specifier.endsWith('.js')) return next(`${specifier.slice(0, -3)}.ts`, context);
    throw error;
  }
}

export function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const fileName = fileURLToPath(url);
  const source = readFileSync(fileName, 'utf8');
  const digest = createHash('sha256').update(fileName).update('\0').update(source).digest('hex');
  const cached = join(CACHE_DIR, `${digest}.mjs`);
  try {
    return { format: 'module', source: readFileSync(cached, 'utf8'), shortCircuit: true };
  } catch {}
  ts ??= require('typescript');
  const { outputText } = ts.transpileModule(source, {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
      inlineSourceMap: true,
    },
  });
  mkdirSync(CACHE_DIR, { recursive: true });
  const temporary = `${cached}.${process.pid}.tmp`;
  writeFileSync(temporary, outputText);
  renameSync(temporary, cached);
  return { format: 'module', source: outputText, shortCircuit: true };
}
