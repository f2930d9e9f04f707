// The callback: PATCH task_result_callback_url with the JSON:API body, the access token as a bearer token.
// Retried with backoff on connection errors, 429 (honouring Retry-After) and 5xx; any other answer is final.
import { JSON_API_MEDIA_TYPE, type TaskResultBody } from './protocol.js';

export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  constructor(
    message: string,
    /** True when trying later may work (connection, 429, 5xx); false when HCP Terraform refused the body. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface DeliveryOptions {
  /** Delays before each retry, in ms; the last is repeated no further. */
  backoffMs?: readonly number[];
  signal?: AbortSignal;
}

const DEFAULT_BACKOFF = [500, 1000, 2000, 4000, 8000] as const;
const MAX_RETRY_AFTER_MS = 30_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - Date.now()), MAX_RETRY_AFTER_MS);
}

export async function deliverTaskResult(
  callbackUrl: string,
  token: string,
  body: TaskResultBody,
  options: DeliveryOptions = {},
): Promise<void> {
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF;
  const text = JSON.stringify(body);
  let last = '';
  for (let attempt = 0; attempt <= backoff.length; attempt++) {
    let wait = backoff[attempt];
    try {
      const response = await fetch(callbackUrl, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': JSON_API_MEDIA_TYPE },
        body: text,
        // A redirect would carry the token elsewhere: not followed.
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(30_000), ...(options.signal ? [options.signal] : [])]),
      });
      await response.body?.cancel();
      if (response.status >= 200 && response.status < 300) return;
      last = `HCP Terraform answered HTTP ${response.status}`;
      if (response.status !== 429 && response.status < 500) throw new DeliveryError(last, false);
      if (response.status === 429) wait = retryAfterMs(response.headers.get('retry-after')) ?? wait;
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      if (options.signal?.aborted) throw error;
      last = `the callback could not be sent: ${(error as Error).message}`;
    }
    if (wait === undefined) break;
    await sleep(wait, options.signal);
  }
  throw new DeliveryError(last, true);
}
