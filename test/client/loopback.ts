// Small real HTTP servers on 127.0.0.1 for client tests: a handler per test, every request recorded.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  /** Bytes received, when the handler read the body with `readBody`. */
  body?: Buffer;
}

export interface Loopback {
  baseUrl: string;
  requests: RecordedRequest[];
  server: Server;
  close(): Promise<void>;
}

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  recorded: RecordedRequest,
  attempt: number,
) => void | Promise<void>;

export async function readBody(req: IncomingMessage, recorded?: RecordedRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  if (recorded) recorded.body = body;
  return body;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function contractError(code: string, message: string) {
  return { error: { code, message } };
}

export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: new URL(req.url ?? '/', 'http://127.0.0.1'),
      headers: req.headers,
    };
    requests.push(recorded);
    try {
      await handler(req, res, recorded, requests.length);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, contractError('internal', String(error)));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client config for tests: fast retries, the given key, no proxy from the environment. */
export function testEnv(baseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    TFGATE_BASE_URL: baseUrl,
    TFGATE_API_KEY: 'tfg_test_key_0123456789abcdef',
    TFGATE_RETRY_BASE_DELAY_MS: '5',
    TFGATE_RETRY_MAX_DELAY_MS: '2000',
    ...extra,
  };
}

export const TEST_KEY = 'tfg_test_key_0123456789abcdef';
