// `dasvc mock --proxy <upstream>`: every service request goes to the real installation and its
// answer comes back unchanged (forwarding.ts). Taps (the recorder, the contract validator, the
// secret collector) see each exchange; when one wants the body, the answer is buffered first.
// Without taps nothing is built for them.
import type { Dispatcher } from 'undici';
import type { MockRequest, MockResponse } from '../core/types.js';
import { createEnvProxyAgent, proxySettings } from '../../http/proxy.js';
import { httpTimeoutMs } from '../../http/timeout.js';
import type { Env } from '../../util/env.js';
import { utf8Text } from '../../util/utf8-text.js';
import { endToEndHeaders, rawHeader } from './proxy-headers.js';
import { Forwarding, type Upstream } from './forwarding.js';
import { ProxyNotes } from './proxy-note.js';
import type { Exchange, ProxyTap } from './proxy-tap.js';

/** The largest request body forwarded (JSON-RPC and forms are far smaller); larger is a 413. */
const REQUEST_LIMIT = 16 * 1024 * 1024;

/** undici sets the length of the body it sends. */
const REQUEST_EXTRA = new Set(['content-length']);

/** The forwarding side of the mock. */
export interface Proxy {
  forward(request: MockRequest, path: string): Promise<MockResponse>;
  close(): Promise<void>;
}

/** Whether a request says it has a body (RFC 9112 §6.1: Content-Length above 0 or Transfer-Encoding). */
function declaresBody(raw: readonly string[]): boolean {
  const length = rawHeader(raw, 'content-length');
  return (
    (length !== undefined && length !== '0') || rawHeader(raw, 'transfer-encoding') !== undefined
  );
}

/**
 * A proxy to `upstream` through undici: keep-alive connections, `DASVC_HTTP_TIMEOUT` (default
 * 30 s) for connect, headers and between body chunks, and HTTP(S)_PROXY/NO_PROXY as the CLI
 * honours them.
 */
export async function createProxy(
  upstream: string,
  taps: ProxyTap[],
  env: Env = process.env,
): Promise<Proxy> {
  const timeout = httpTimeoutMs(env);
  const options = {
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connect: { timeout },
    keepAliveTimeout: 10_000,
  };
  const base = new URL(upstream);
  const origin = base.origin;
  // The upstream's own path (an installation under `/das`) goes before every forwarded path.
  const prefix = base.pathname.replace(/\/+$/, '');
  // One origin: a Pool of keep-alive connections to it, unless a proxy variable is set: then
  // undici's EnvHttpProxyAgent, which decides whether it goes through the proxy (NO_PROXY).
  const proxies = proxySettings(env);
  const dispatcher: Dispatcher = proxies
    ? await createEnvProxyAgent(proxies, options)
    : new (await import('undici')).Pool(origin, options);
  const context: Upstream = { url: upstream, taps, notes: new ProxyNotes() };

  /** Sends the request on once its body is in (`null`: a GET or HEAD that declares none). */
  function send(
    request: MockRequest,
    raw: string[],
    path: string,
    body: Uint8Array | null,
  ): Promise<MockResponse> {
    const method = request.method;
    // Without taps (plain --proxy) nothing is built for them.
    let exchange: Exchange | undefined;
    let wantsBody = false;
    if (taps.length > 0) {
      exchange = {
        method,
        path,
        query: request.query,
        requestHeader: (name) => rawHeader(raw, name),
        requestBody: body === null ? '' : utf8Text(body),
        status: 0,
        responseHeader: () => undefined,
      };
      wantsBody = taps.some((tap) => tap.wantsBody(path));
    }
    return new Promise<MockResponse>((settle) => {
      dispatcher.dispatch(
        {
          origin,
          path: `${prefix}${path}${request.query === '' ? '' : `?${request.query}`}`,
          method: method as Dispatcher.HttpMethod,
          headers: endToEndHeaders(raw, REQUEST_EXTRA),
          body,
        },
        new Forwarding(
          context,
          exchange,
          wantsBody,
          settle,
          context.notes.ask(path, request.query, raw, body),
        ),
      );
    });
  }

  function forward(request: MockRequest, path: string): Promise<MockResponse> {
    const raw = request.rawHeaders?.() ?? [];
    // A GET or HEAD goes on without a body unless it declares one (rare, but passed on as sent).
    if ((request.method === 'GET' || request.method === 'HEAD') && !declaresBody(raw))
      return send(request, raw, path, null);
    return request.bytes(REQUEST_LIMIT).then((body) => send(request, raw, path, body));
  }

  let closing: Promise<void> | undefined;
  return { forward, close: () => (closing ??= dispatcher.close()) };
}
