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
 * A loopback listener on 127.0.0.1 only (RFC 8252 §7.3). GET /callback goes to `onCallback`; every
 * other path answers 404 without ending the wait (browsers ask for /favicon.ico).
 */
export async function startLoopback(
  port: number,
  onCallback: (query: URLSearchParams) => Promise<CallbackReply>,
): Promise<Loopback> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        connection: 'close',
      });
      res.end(body);
    };
    if (url.pathname !== '/callback') return send(404, 'text/plain; charset=utf-8', 'not found\n');
    if (req.method !== 'GET') return send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
    onCallback(url.searchParams).then(
      (reply) => send(reply.status, 'text/html; charset=utf-8', reply.html),
      () => send(500, 'text/plain; charset=utf-8', 'error\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(`cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}`, {
          code: 'listen_failed',
          hint:
            error.code === 'EADDRINUSE'
              ? 'choose another --port, or omit it for a free one'
              : undefined,
        }),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address !== null ? address.port : port;
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
