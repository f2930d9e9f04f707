// tfgate's version: read from the package.json it ships with (src/fs/package-version.ts, shared with the
// SARIF report's tool driver).
export { packageVersion } from '../fs/package-version.js';
