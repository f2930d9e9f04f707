// The store's own errors, in the domain's words: what was not found, what conflicts. They carry no HTTP
// status; the HTTP layer (http/store-errors.ts) maps them to statuses and the contract's error bodies.
import { TfgateError } from '../../errors/index.js';

export type StoreErrorSubject =
  | { code: 'account_not_found'; account: string }
  | { code: 'api_key_not_found'; keyId: string }
  | { code: 'finding_not_found'; packageId: string; findingId: string }
  | { code: 'account_exists'; account: string }
  | { code: 'revision_mismatch'; current: string; requested: string }
  | { code: 'finding_resolved'; findingId: string }
  | { code: 'finding_not_acknowledged'; findingId: string }
  | { code: 'plan_acknowledgement_not_found'; packageId: string; findingId: string };

export abstract class StoreError extends TfgateError {
  constructor(
    readonly subject: StoreErrorSubject,
    message: string,
  ) {
    super(subject.code, message);
  }
}

/** The record a write names does not exist. */
export class NotFoundError extends StoreError {
  override readonly name = 'NotFoundError';
}

/** The write conflicts with what is stored (a duplicate, a stale revision, a resolved finding). */
export class ConflictError extends StoreError {
  override readonly name = 'ConflictError';
}
