import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MockRequest, MockResponse } from '../core/types.js';
import { BodyTooLargeError, ClientGoneError } from '../core/types.js';
import { INTERNAL_ERROR_BODY, JSON_TYPE, methodNotAllowed } from '../core/responses.js';
import { UsageError } from '../../errors.js';
import { BoundedBytes } from '../../util/bounded-bytes.js';
import { parseDuration } from '../../util/duration.js';

const HOST_HEADER = /^[A-Za-z0-9.\-:[\]]{1,300}$/;

/** A loopback name, with or without a port: 127.x.y.z, localhost, [::1]. */
const LOOPBACK_HOST =
  /^(127(\.\d{1,3}){1,3}|localhost\.?|\[::1\]|\[::ffff:127(\.\d{1,3}){3}\])(:\d{1,5})?$/i;

/** Whether the server's own address is a loopback one (its requests then name loopback hosts). */
function isLoopbackAddress(host: string): boolean {
  const name = host.toLowerCase();
  return /^127\./.test(name) || name === '::1' || name === 'localhost';
}

/**
 * A header's value from node's raw list, without `req.headers` (node builds that object on first
 * use, every header lower-cased: a cost on the proxy's path, which forwards the raw list).
 */
function rawValue(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/** Sockets whose request the server's timeout ended (their 408 sent), for the journal. */
const timedOut = new WeakSet<Socket>();

/** Sockets whose request was answered before its body was in, until the body ends. */
const answeredBeforeBody = new WeakSet<Socket>();

function answeredEarly(req: IncomingMessage): void {
  const socket = req.socket;
  answeredBeforeBody.add(socket);
  req.once('end', () => answeredBeforeBody.delete(socket));
}

function readLimited(req: IncomingMessage, limit: number, into: NodeRequest): Promise<Buffer> {
  const declared = Number(rawValue(req.rawHeaders, 'content-length'));
  if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const body = new BoundedBytes(limit);
    req.on('data', (chunk: Buffer) => {
      if (body.add(chunk)) return;
      req.removeAllListeners('data');
      req.resume();
      reject(new BodyTooLargeError(limit));
    });
    req.on('end', () => resolve((into.receivedBody = body.bytes())));
    // node:http's only request error is the connection ending mid-body ('aborted'): the client
    // closed it, or the request timeout did (its 408 already sent by clientError below).
    req.on('error', () =>
      reject(
        timedOut.has(req.socket)
          ? new ClientGoneError(
              408,
              'request_timeout',
              'the request body did not arrive within --request-timeout (answered 408)',
            )
          : new ClientGoneError(),
      ),
    );
  });
}

/** `http://authority` at the start of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * A node:http request as the core sees it (issue 15: no fetch objects, no closures per request):
 * nothing is parsed that the route does not ask for, the origin included.
 */
class NodeRequest implements MockRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  /** The authority of an absolute-form target, which replaces Host. */
  private readonly absoluteHost: string | undefined;
  private body: Promise<Buffer> | undefined = undefined;
  receivedBody: Buffer | undefined = undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly fallbackHost: string,
    /** The server listens on a loopback address: Host must name one too (loopbackHost). */
    private readonly loopbackOnly: boolean,
  ) {
    let url = req.url ?? '/';
    let host: string | undefined;
    if (url.charCodeAt(0) !== 47 /* / */) {
      // Absolute form (as sent to a proxy): route by its path; its authority replaces Host.
      const absolute = ABSOLUTE_FORM.exec(url);
      if (absolute) {
        host = absolute[1];
        url = url.slice(absolute[0].length);
        if (!url.startsWith('/')) url = `/${url}`;
      }
    }
    const q = url.indexOf('?');
    this.method = req.method ?? 'GET';
    this.path = q === -1 ? url : url.slice(0, q);
    this.query = q === -1 ? '' : url.slice(q + 1);
    this.absoluteHost = host;
  }

  get loopbackHost(): boolean | undefined {
    if (!this.loopbackOnly) return undefined;
    // No Host at all (HTTP/1.0 tools) is no browser: a rebound page always sends its name.
    const host = this.authority;
    return host === '' || LOOPBACK_HOST.test(host);
  }

  /** The authority the request names: an absolute-form target's, else its Host header. */
  get authority(): string {
    return this.absoluteHost ?? this.req.headers.host ?? '';
  }

  get origin(): string {
    const host = this.absoluteHost ?? this.req.headers.host;
    return `http://${host !== undefined && HOST_HEADER.test(host) ? host : this.fallbackHost}`;
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  bytes(limit: number): Promise<Buffer> {
    return (this.body ??= readLimited(this.req, limit, this));
  }

  text(limit: number): Promise<string> {
    return this.bytes(limit).then((bytes) => bytes.toString('utf8'));
  }

  rawHeaders(): string[] {
    return this.req.rawHeaders;
  }
}

/** A proxied answer (SPEC §6): headers as received, body bytes piped with back-pressure. */
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

/** How long a client may take to send a request (SPEC §5: a stalled client never holds a socket for long). */
export interface ServerTimeouts {
  /** Until the request head is complete. */
  headersMs: number;
  /** Until the whole request, body included, is in. */
  requestMs: number;
}

/** 10 s for the head, 30 s for the whole request (`--headers-timeout`, `--request-timeout`). */
export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000 };

function timeoutMs(input: string | number | undefined, fallback: number, flag: string): number {
  if (input === undefined) return fallback;
  const ms = Math.round(parseDuration(input, flag) * 1000);
  // Longer than a day is no timeout at all; node:http takes 0 as "none", which is not offered.
  if (!(ms >= 1 && ms <= 86_400_000)) {
    throw new UsageError(`${flag} must be between 1ms and 1d, got ${String(input)}`, {
      code: 'bad_duration',
    });
  }
  return ms;
}

/** Reads the timeout options (durations like `10s`, `500ms`, or seconds); usage error when out of range. */
export function parseServerTimeouts(options: {
  headersTimeout?: string | number;
  requestTimeout?: string | number;
}): ServerTimeouts {
  const headersMs = timeoutMs(
    options.headersTimeout,
    DEFAULT_TIMEOUTS.headersMs,
    '--headers-timeout (option headersTimeout)',
  );
  const requestMs = timeoutMs(
    options.requestTimeout,
    Math.max(DEFAULT_TIMEOUTS.requestMs, headersMs),
    '--request-timeout (option requestTimeout)',
  );
  if (requestMs < headersMs) {
    throw new UsageError('--request-timeout must not be shorter than --headers-timeout', {
      code: 'bad_duration',
    });
  }
  return { headersMs, requestMs };
}

/**
 * node:http options that answer within the timeouts: node checks expired requests every
 * `connectionsCheckingInterval`, so each limit is handed over one interval early.
 */
function nodeTimeouts(timeouts: ServerTimeouts) {
  const interval = Math.min(1000, Math.max(5, Math.floor(timeouts.headersMs / 10)));
  const headersTimeout = Math.max(1, timeouts.headersMs - interval);
  const requestTimeout = Math.max(headersTimeout, timeouts.requestMs - interval);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: interval };
}

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
