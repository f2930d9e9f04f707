// Errors the service answers with: an HTTP status and the contract's snake_case code.
import { TfgateError } from '../../errors/index.js';

export class ServiceError extends TfgateError {
  override readonly name = 'ServiceError';
  readonly status: number;
  /** Extra headers (Retry-After) and body fields (the gate's result on 409). */
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: {
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
      body?: Record<string, unknown>;
      cause?: unknown;
    } = {},
  ) {
    super(code, message, { details: options.details, cause: options.cause });
    this.status = status;
    this.headers = options.headers ?? {};
    this.body = options.body;
  }
}

export const notFound = (packageId: string): ServiceError =>
  new ServiceError(
    404,
    'package_not_found',
    `package "${packageId}" was not found for this account; check the package id, or create it with PUT /v1/analysis/conformance/packages/${packageId}`,
  );

export const invalidParameter = (name: string, allowed: readonly string[], got: string): ServiceError =>
  new ServiceError(
    400,
    'invalid_parameter',
    `invalid value ${JSON.stringify(got)} for "${name}"; allowed values: ${allowed.join(', ')}`,
    { details: { parameter: name, allowed } },
  );
