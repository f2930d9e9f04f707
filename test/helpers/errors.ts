// The TfgateError a promise rejects with; anything else (a resolution, another error) fails the test.
import { isTfgateError, type TfgateError } from '../../src/errors/index.js';

export async function failure(promise: Promise<unknown>): Promise<TfgateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isTfgateError(error)) throw new Error(`expected a TfgateError, got ${String(error)}`);
  return error;
}
