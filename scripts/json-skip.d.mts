/** The SHA-256 of scripts/json-skip/skip.ts and the WebAssembly the pinned AssemblyScript compiles from it. */
export function compileSkipWasm(): Promise<{ sourceSha256: string; bytes: Buffer }>;
