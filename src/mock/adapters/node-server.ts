import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MockRequest, MockResponse } from '../core/types.js';
import { BodyTooLargeError } from '../core/types.js';
import { INTERNAL_ERROR_BODY, JSON_TYPE } from '../core/responses.js';

const HOST_HEADER = /^[A-Za-z0-9.\-:[\]]{1,300}$/;

function readLimited(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(
        chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      ),
    );
    req.on('error', reject);
  });
}

/** `http://authority` at the start of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

/** A node:http request as the core sees it; nothing is parsed that the route does not ask for. */
function fromNodeRequest(req: IncomingMessage, fallbackHost: string): MockRequest {
  let url = req.url ?? '/';
  let host = req.headers.host;
  if (!url.startsWith('/')) {
    // Absolute form (as sent to a proxy): route by its path; its authority replaces Host.
    const absolute = ABSOLUTE_FORM.exec(url);
    if (absolute) {
      host = absolute[1];
      url = url.slice(absolute[0].length);
      if (!url.startsWith('/')) url = `/${url}`;
    }
  }
  const q = url.indexOf('?');
  let body: Promise<string> | undefined;
  return {
    method: req.method ?? 'GET',
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? '' : url.slice(q + 1),
    origin: `http://${host !== undefined && HOST_HEADER.test(host) ? host : fallbackHost}`,
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    text: (limit) => (body ??= readLimited(req, limit)),
    headerList: () => {
      const pairs: [string, string][] = [];
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
      return pairs;
    },
  };
}

/** A proxied answer (SPEC §6): headers as received, body bytes piped with back-pressure. */
function writeStream(req: IncomingMessage, res: ServerResponse, response: MockResponse): void {
  res.writeHead(response.status, (response.rawHeaders ?? []).flat());
  const source =
    response.stream instanceof Readable ? response.stream : Readable.from(response.stream!);
  // An upstream that fails mid-body: the client's connection is cut, as the upstream's was.
  pipeline(source, res).catch(() => req.socket.destroy());
}

function write(req: IncomingMessage, res: ServerResponse, response: MockResponse): void {
  if (response.drop) {
    req.socket.destroy();
    return;
  }
  if (response.stream) return writeStream(req, res, response);
  if (response.status === 413) res.shouldKeepAlive = false; // the rest of the body is not read
  const headers = response.headers;
  headers['content-length'] = String(Buffer.byteLength(response.body));
  res.writeHead(response.status, headers);
  res.end(response.body);
}

/** A JSON 500 if nothing was sent yet (e.g. a header value node:http refused), else a cut connection. */
function writeInternalError(req: IncomingMessage, res: ServerResponse): void {
  try {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    res.writeHead(500, {
      'content-type': JSON_TYPE,
      'content-length': String(INTERNAL_ERROR_BODY.length),
    });
    res.end(INTERNAL_ERROR_BODY);
  } catch {
    req.socket.destroy();
  }
}

const CLIENT_ERROR_BODY =
  '{"error":"invalid_request","error_description":"malformed HTTP request"}';

/**
 * Serves the core handler from node:http (like @hono/node-server, without building fetch objects
 * per request: the core's string body is written directly).
 */
export function serveNode(
  handle: (request: MockRequest) => Promise<MockResponse>,
  host: string,
  port: number,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  let fallbackHost = `${host}:${port}`;
  const server = createServer((req, res) => {
    // Whatever fails (the handler, or writing its answer), the client gets an answer and the
    // process no unhandled rejection.
    handle(fromNodeRequest(req, fallbackHost))
      .then((response) => write(req, res, response))
      .catch(() => writeInternalError(req, res));
  });
  server.keepAliveTimeout = 10_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const status =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? '431 Request Header Fields Too Large'
        : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${CLIENT_ERROR_BODY.length}\r\n\r\n${CLIENT_ERROR_BODY}`,
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      fallbackHost = `${host.includes(':') ? `[${host}]` : host}:${actual}`;
      resolve({
        server,
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            // In-flight requests get a moment; then every connection goes.
            setTimeout(() => server.closeAllConnections(), 1000).unref();
          }),
      });
    });
  });
}
