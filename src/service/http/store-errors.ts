// The store's domain errors as the contract's answers: a status, the error code, and a message that says
// how to fix it in the API's own terms (which the store does not know).
import { ServiceError } from '../core/errors.js';
import { ConflictError, NotFoundError, type StoreError } from '../store/index.js';

function howToFix(error: StoreError): string {
  const subject = error.subject;
  switch (subject.code) {
    case 'account_not_found':
      return 'create it with `tfgate accounts create <name> --plan <plan>` (POST /v1/admin/accounts), with an admin key of the operator account';
    case 'api_key_not_found':
      return "the id is the one printed when the key was created (key_…); list an account's keys with GET /v1/admin/accounts/{account}/api-keys or `tfgate keys list --account <name>`";
    case 'finding_not_found':
      return `list findings with GET /v1/analysis/conformance/packages/${subject.packageId}/findings`;
    case 'account_exists':
      return `change its plan with PATCH /v1/admin/accounts/${subject.account}`;
    case 'revision_mismatch':
      return 'review the current design and approve that revision';
    case 'finding_resolved':
      return 'there is nothing to acknowledge';
    case 'finding_not_acknowledged':
      return 'there is no acknowledgement to revoke; list the acknowledged findings with ?status=acknowledged';
    case 'plan_acknowledgement_not_found':
      return `list them with GET /v1/analysis/conformance/packages/${subject.packageId}/plan-acknowledgements`;
  }
}

export function storeErrorReply(error: StoreError): ServiceError {
  const status = error instanceof NotFoundError ? 404 : error instanceof ConflictError ? 409 : 500;
  return new ServiceError(status, error.code, `${error.message}; ${howToFix(error)}`, { cause: error });
}
