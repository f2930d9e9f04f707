// Module hooks that run tfgate's TypeScript sources directly in a child process (no build step):
// `./x.js` imports resolve to `./x.ts`, and .ts files are transpiled with TypeScript's transpileModule.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Transpiled output is cached by content hash, so each child process after the first starts fast.
const CACHE_DIR = join(tmpdir(), 'tfgate-ts-cache');
let ts;

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
    if (relative && specifier.endsWith('.js')) return next(`${specifier.slice(0, -3)}.ts`, context);
    throw error;
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const fileName = fileURLToPath(url);
  const source = await readFile(fileName, 'utf8');
  const digest = createHash('sha256').update(fileName).update('\0').update(source).digest('hex');
  const cached = join(CACHE_DIR, `${digest}.mjs`);
  try {
    return { format: 'module', source: await readFile(cached, 'utf8'), shortCircuit: true };
  } catch {}
  ts ??= (await import('typescript')).default;
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
  await mkdir(CACHE_DIR, { recursive: true });
  const temporary = `${cached}.${process.pid}.tmp`;
  await writeFile(temporary, outputText);
  await rename(temporary, cached);
  return { format: 'module', source: outputText, shortCircuit: true };
}
