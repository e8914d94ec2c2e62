import type { IncomingMessage } from 'node:http';
import type { MockRequest } from '../core/types.js';
import { BodyTooLargeError, ClientGoneError } from '../core/types.js';
import { BoundedBytes } from '../../util/bounded-bytes.js';
import { timedOut } from './server-timeouts.js';

const HOST_HEADER = /^[A-Za-z0-9.\-:[\]]{1,300}$/;

/** A loopback name, with or without a port: 127.x.y.z, localhost, [::1]. */
const LOOPBACK_HOST =
  /^(127(\.\d{1,3}){1,3}|localhost\.?|\[::1\]|\[::ffff:127(\.\d{1,3}){3}\])(:\d{1,5})?$/i;

function readLimited(req: IncomingMessage, limit: number, into: NodeRequest): Promise<Buffer> {
  // node:http has made `req.headers` before the request is handed over: a lookup, not a scan.
  const declared = Number(req.headers['content-length']);
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
 * A node:http request as the core sees it (no fetch objects, no closures per request):
 * nothing is parsed that the route does not ask for, the origin included.
 */
export class NodeRequest implements MockRequest {
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
