// A small, real implementation of the server side of terraform's `http` state backend, on loopback, for tests:
// GET <address> answers the state (404 when there is none), POST <address> stores it, LOCK/UNLOCK on
// <address>/lock hold one lock per state (423 while another holds it), HTTP Basic auth when credentials are
// given. This is the protocol terraform's own backend client speaks (internal/backend/remote-state/http);
// terraform and tofu run against it unmodified. `hang` makes every request for a path go unanswered, for
// time-limit tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface HttpStateBackend {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The address setting of a state named `name`: `${url}/state/${name}`. */
  address(name: string): string;
  /** The stored state of `name`, as terraform wrote it. */
  state(name: string): Buffer | undefined;
  /** Requests per method, for assertions that a read really reached the server. */
  requests: Array<{ method: string; path: string }>;
  /** Paths (prefix match) whose requests are never answered. */
  hang: Set<string>;
  close(): Promise<void>;
}

export async function startHttpStateBackend(
  options: { username?: string; password?: string } = {},
): Promise<HttpStateBackend> {
  const states = new Map<string, Buffer>();
  const locks = new Map<string, string>();
  const requests: HttpStateBackend['requests'] = [];
  const hang = new Set<string>();
  const hanging = new Set<ServerResponse>();

  const authorised = (request: IncomingMessage): boolean => {
    if (options.username === undefined) return true;
    const expected = `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
    return request.headers.authorization === expected;
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Decoded, so a state's name is the one in its address whichever characters the client escaped.
    const path = decodeURIComponent(url.pathname);
    requests.push({ method: request.method ?? '', path });
    if ([...hang].some((prefix) => path.startsWith(prefix))) {
      hanging.add(response);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (!authorised(request)) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="state"' }).end('unauthorised');
        return;
      }
      const body = Buffer.concat(chunks);
      const lockPath = path.endsWith('/lock') ? path.slice(0, -'/lock'.length) : undefined;
      switch (request.method) {
        case 'GET': {
          const state = states.get(path);
          if (!state) response.writeHead(404).end();
          else response.writeHead(200, { 'Content-Type': 'application/json' }).end(state);
          return;
        }
        case 'POST': {
          const held = locks.get(path);
          const id = url.searchParams.get('ID');
          if (held !== undefined && id !== null && id !== held) {
            response.writeHead(409).end('locked by another');
            return;
          }
          states.set(path, body);
          response.writeHead(200).end();
          return;
        }
        case 'DELETE':
          states.delete(path);
          response.writeHead(200).end();
          return;
        case 'LOCK': {
          if (!lockPath) break;
          const info = body.toString('utf8');
          if (locks.has(lockPath)) {
            response.writeHead(423, { 'Content-Type': 'application/json' }).end(locks.get(lockPath));
            return;
          }
          locks.set(lockPath, /"ID"\s*:\s*"([^"]*)"/.exec(info)?.[1] ?? '');
          response.writeHead(200).end();
          return;
        }
        case 'UNLOCK':
          if (!lockPath) break;
          locks.delete(lockPath);
          response.writeHead(200).end();
          return;
      }
      response.writeHead(405).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    address: (name) => `${url}/state/${name}`,
    state: (name) => states.get(`/state/${name}`),
    requests,
    hang,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
