import { createServer, type Server } from 'node:http';
import { UsageError } from '../errors.js';

/** What the loopback answers to one /callback request. */
export interface CallbackReply {
  status: number;
  html: string;
}

export interface Loopback {
  port: number;
  close(): Promise<void>;
}

/**
 * The request target as a URL, or undefined when it is not an origin-form path that parses
 * (`GET http://%zz/callback` must not end the login).
 */
function requestUrl(target: string | undefined): URL | undefined {
  if (target === undefined || !target.startsWith('/') || target.startsWith('//')) return undefined;
  try {
    return new URL(target, 'http://127.0.0.1');
  } catch {
    return undefined;
  }
}

/**
 * Whether the Host header names this listener: a page of another origin whose name resolves to
 * 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
 */
function isOwnHost(host: string | undefined, port: number): boolean {
  const name = host?.toLowerCase();
  return name === `127.0.0.1:${port}` || name === `localhost:${port}`;
}

/**
 * A loopback listener on 127.0.0.1 only (RFC 8252 §7.3). GET /callback goes to `onCallback`; every
 * other path answers 404 without ending the wait (browsers ask for /favicon.ico). A request the
 * listener cannot parse, or whose Host is not 127.0.0.1:<port> or localhost:<port>, gets 400 and
 * never reaches the login.
 */
export async function startLoopback(
  port: number,
  /** The callback's query, parsed and as it came (`?…`). */
  onCallback: (query: URLSearchParams, search: string) => Promise<CallbackReply>,
): Promise<Loopback> {
  let listening = port;
  const server: Server = createServer((req, res) => {
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        connection: 'close',
      });
      res.end(body);
    };
    const url = requestUrl(req.url);
    if (url === undefined || !isOwnHost(req.headers.host, listening))
      return send(400, 'text/plain; charset=utf-8', 'bad request\n');
    if (url.pathname !== '/callback') return send(404, 'text/plain; charset=utf-8', 'not found\n');
    if (req.method !== 'GET') return send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
    onCallback(url.searchParams, url.search).then(
      (reply) => send(reply.status, 'text/html; charset=utf-8', reply.html),
      () => send(500, 'text/plain; charset=utf-8', 'error\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(`cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}`, {
          code: 'listen_failed',
          facts: { port, errno: error.code },
        }),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address !== null ? address.port : port;
  listening = actual;
  let closed: Promise<void> | undefined;
  return {
    port: actual,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Give the last page a moment to flush, then drop idle keep-alive sockets.
        setTimeout(() => server.closeAllConnections(), 50).unref();
      });
      return closed;
    },
  };
}
