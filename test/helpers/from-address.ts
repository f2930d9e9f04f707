// HTTP requests from a chosen loopback source address (127.0.0.2, 127.0.0.3, ...: Linux routes all of 127/8 to
// the loopback interface), so tests can be several clients of a service listening on 127.0.0.1.
import { request } from 'node:http';

export interface AddressResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<AddressResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString(),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** One sign-in to the dashboard from `localAddress`: the form (cookie and token), then the post. */
export async function signInFrom(
  baseUrl: string,
  localAddress: string,
  apiKey: string,
): Promise<AddressResponse> {
  const form = await requestFrom(localAddress, `${baseUrl}/ui/login`);
  const setCookie = form.headers['set-cookie']?.[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
  return requestFrom(localAddress, `${baseUrl}/ui/login`, {
    method: 'POST',
    headers: { cookie: setCookie.split(';')[0]!, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, api_key: apiKey }).toString(),
  });
}
