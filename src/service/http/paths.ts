// The API's path prefixes, in their own module so every routes-*.ts file can import them (routes.ts
// imports those files, so they cannot import it without a cycle).
export const BASE_PATH = '/v1/analysis/conformance';
/** One package's routes hang below this. */
export const PACKAGE_PATH = `${BASE_PATH}/packages/{package_id}` as const;
