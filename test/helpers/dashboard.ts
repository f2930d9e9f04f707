// Drive the dashboard over plain HTTP (fetch, no redirects followed): sign in, read pages, post forms.
import type { TestService } from './service.js';

export interface UiResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface UiClient {
  /** The session cookie (`tfgate_session=...`), once signed in. */
  cookie: string | undefined;
  get(path: string): Promise<UiResponse>;
  /** Posts a form; the session's CSRF token is added unless `csrf` is given (null: none). */
  post(
    path: string,
    fields: Record<string, string | string[]>,
    options?: { csrf?: string | null },
  ): Promise<UiResponse>;
  /** The CSRF token found in the last page read. */
  csrf: string | undefined;
}

const hiddenCsrf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1];

async function send(svc: Pick<TestService, 'baseUrl'>, path: string, init: RequestInit): Promise<UiResponse> {
  const response = await fetch(`${svc.baseUrl}${path}`, { ...init, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Signs in with `apiKey` (throws unless the dashboard answers 303 with a session cookie). */
export async function signInUi(
  svc: Pick<TestService, 'baseUrl'>,
  apiKey: string,
  headers: Record<string, string> = {},
): Promise<UiClient & { setCookie: string }> {
  const form = await send(svc, '/ui/login', { headers });
  const loginCookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const answer = await send(svc, '/ui/login', {
    method: 'POST',
    headers: { ...headers, cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: hiddenCsrf(form.text)!, api_key: apiKey }).toString(),
  });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  if (answer.status !== 303 || !setCookie.startsWith('tfgate_session=')) {
    throw new Error(`sign-in failed: ${answer.status} ${answer.text.slice(0, 300)}`);
  }
  const client = uiClient(svc, setCookie.split(';')[0]!);
  await client.get('/ui/packages');
  return { ...client, setCookie, get: client.get, post: client.post };
}

export function uiClient(svc: Pick<TestService, 'baseUrl'>, cookie: string | undefined): UiClient {
  const client: UiClient = {
    cookie,
    csrf: undefined,
    async get(path) {
      const res = await send(svc, path, { headers: cookie ? { cookie } : {} });
      client.csrf = hiddenCsrf(res.text) ?? client.csrf;
      return res;
    },
    async post(path, fields, options = {}) {
      const body = new URLSearchParams();
      const csrf = options.csrf === undefined ? client.csrf : options.csrf;
      if (csrf !== null && csrf !== undefined) body.set('csrf', csrf);
      for (const [name, value] of Object.entries(fields)) {
        for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
      }
      return send(svc, path, {
        method: 'POST',
        headers: { ...(cookie ? { cookie } : {}), 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
    },
  };
  return client;
}
