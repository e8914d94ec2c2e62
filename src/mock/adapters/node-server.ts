import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MockRequest, MockResponse } from '../core/types.js';
import { INTERNAL_ERROR_BODY, JSON_TYPE, methodNotAllowed } from '../core/responses.js';
import { NodeRequest } from './node-request.js';
import {
  answeredBeforeBody,
  answeredEarly,
  DEFAULT_TIMEOUTS,
  nodeTimeouts,
  timedOut,
  type ServerTimeouts,
} from './server-timeouts.js';

/** Whether the server's own address is a loopback one (its requests then name loopback hosts). */
function isLoopbackAddress(host: string): boolean {
  const name = host.toLowerCase();
  return /^127\./.test(name) || name === '::1' || name === 'localhost';
}

/** A proxied answer: headers as received, body bytes piped with back-pressure. */
function writeStream(req: IncomingMessage, res: ServerResponse, response: MockResponse): void {
  // The upstream's reason phrase too, when it sent one (undefined: node puts the standard one).
  res.writeHead(response.status, response.statusMessage, response.rawHeaders ?? []);
  if (Array.isArray(response.stream)) {
    const chunks = response.stream as Uint8Array[];
    res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    return;
  }
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
  if (response.status === 413)
    res.shouldKeepAlive = false; // the rest of the body is not read
  // Answered before its body was all in (a 404 or 401 that never reads it): node drains the rest
  // and keeps the connection; should the rest stall, the request timeout must not send a second,
  // unasked-for 408 on it (clientError closes such a connection quietly).
  else if (!req.complete) answeredEarly(req);
  const headers = response.headers;
  // RFC 9110 §8.6: no Content-Length on a 204 (node:http sends no body for it).
  if (response.status !== 204) headers['content-length'] = String(Buffer.byteLength(response.body));
  res.writeHead(response.status, headers);
  res.end(response.body);
}

/**
 * One request: whatever fails (the handler, or writing its answer), the client gets an answer and
 * the process no unhandled rejection. Promise callbacks rather than an async function: one
 * promise less per request on the proxy's hot path.
 */
function serveOne(
  handle: (request: MockRequest) => Promise<MockResponse>,
  req: IncomingMessage,
  res: ServerResponse,
  fallbackHost: string,
  loopbackOnly: boolean,
): void {
  let answer: Promise<MockResponse>;
  try {
    answer = handle(new NodeRequest(req, fallbackHost, loopbackOnly));
  } catch {
    writeInternalError(req, res);
    return;
  }
  answer.then(
    (response) => {
      try {
        write(req, res, response);
      } catch {
        writeInternalError(req, res);
      }
    },
    () => writeInternalError(req, res),
  );
}

/** A JSON 500 if nothing was sent yet (e.g. a header value node:http refused), else a cut connection. */
function writeInternalError(req: IncomingMessage, res: ServerResponse): void {
  try {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    // The phrase given: writeHead keeps the one of a call that failed (a proxied answer's).
    res.writeHead(500, 'Internal Server Error', {
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

/** A whole HTTP/1.1 answer for a socket that has no ServerResponse (client errors, CONNECT). */
function rawAnswer(status: string, body: string, extra = ''): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: ${JSON_TYPE}\r\nCache-Control: no-store\r\nConnection: close\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** The answer to a client error from node:http's parser (bad request, head too large, too slow). */
function clientErrorAnswer(code: string | undefined, timeouts: ServerTimeouts): string {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const body = JSON.stringify({
      error: 'invalid_request',
      error_description: `request timed out: the head must arrive within ${timeouts.headersMs} ms, the whole request within ${timeouts.requestMs} ms`,
    });
    return rawAnswer('408 Request Timeout', body);
  }
  const status =
    code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
  return rawAnswer(status, CLIENT_ERROR_BODY);
}

/** CONNECT (RFC 9110 §9.3.6) is not a method of the service: 405 like any other (node:http would drop it). */
function connectAnswer(): string {
  const response = methodNotAllowed('GET, POST');
  return rawAnswer('405 Method Not Allowed', response.body, `Allow: ${response.headers.allow}\r\n`);
}

/**
 * Serves the core handler from node:http (like @hono/node-server, without building fetch objects
 * per request: the core's string body is written directly). A stalled head or body gets 408
 * within `timeouts`; CONNECT gets 405.
 */
export function serveNode(
  handle: (request: MockRequest) => Promise<MockResponse>,
  host: string,
  port: number,
  timeouts: ServerTimeouts = DEFAULT_TIMEOUTS,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  let fallbackHost = `${host}:${port}`;
  const loopbackOnly = isLoopbackAddress(host);
  // Without Host (HTTP/1.0 style, raw-socket clients) the request is served as any other, on
  // the listening address, rather than get node:http's bodiless 400 and no log line.
  const server = createServer(
    { ...nodeTimeouts(timeouts), requireHostHeader: false },
    (req, res) => {
      serveOne(handle, req, res, fallbackHost, loopbackOnly);
    },
  );
  // An expectation other than 100-continue is ignored (RFC 9110 §10.1.1 allows 417, not needs
  // it): the request is answered and logged like any other, not with node:http's bodiless 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    serveOne(handle, req, res, fallbackHost, loopbackOnly);
  });
  server.keepAliveTimeout = 10_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Its request has its answer already: a second one (408) would answer nothing that was asked.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && answeredBeforeBody.has(socket))
      return socket.destroy();
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOut.add(socket);
    if (!socket.writable) return socket.destroy();
    socket.end(clientErrorAnswer(error.code, timeouts));
  });
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(connectAnswer());
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
