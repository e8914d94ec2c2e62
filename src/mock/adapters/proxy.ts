// `dasvc mock --proxy <upstream>` (SPEC §6): every service request goes to the real installation
// and its answer comes back unchanged, streamed. Taps (the recorder, the contract validator, the
// secret collector) see each exchange; when one wants the body, the answer is buffered first.
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import type { MockRequest, MockResponse } from '../core/types.js';
import { BodyTooLargeError } from '../core/types.js';
import { jsonResponse } from '../core/responses.js';

/** One exchange as the taps see it: the request, the status and headers, the body if buffered. */
export interface Exchange {
  method: string;
  /** The service path (after any base path), e.g. `/webservice/json/crm`. */
  path: string;
  query: string;
  requestHeader(name: string): string | undefined;
  requestBody: string;
  status: number;
  responseHeader(name: string): string | undefined;
  /** The answer's body as text (content-encoding undone), when a tap asked for it. */
  responseBody?: string;
}

/** Something that watches the exchanges that pass (it must not change them). */
export interface ProxyTap {
  /** Whether it needs the answer's body for this path (the answer is then buffered). */
  wantsBody(path: string): boolean;
  observe(exchange: Exchange): void;
}

/** The largest request body forwarded (JSON-RPC and forms are far smaller); larger is a 413. */
const REQUEST_LIMIT = 16 * 1024 * 1024;

/** RFC 9110 §7.6.1 hop-by-hop headers, plus Host (the upstream's own) and the recomputed length. */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Bodies up to this size (by Content-Length) are read whole before they are passed on. */
const SMALL_BODY = 64 * 1024;

const PROXY_VARS = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'];

/** Header pairs less hop-by-hop ones and those the Connection header names. */
export function endToEndHeaders(pairs: [string, string][], extra: string[] = []): string[] {
  const named = new Set(extra);
  for (const [name, value] of pairs) {
    if (name === 'connection') {
      for (const token of value.split(',')) named.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (const [name, value] of pairs) {
    if (!DROPPED.has(name) && !named.has(name)) out.push(name, value);
  }
  return out;
}

/** 502 (504 on a timeout) with an RFC 6749-shaped body naming the upstream (SPEC §6). */
export function upstreamFailure(upstream: string, error: unknown): MockResponse {
  const code = (error as { code?: string }).code ?? (error as Error).name ?? 'error';
  const timeout = /TIMEOUT/i.test(code);
  return jsonResponse(timeout ? 504 : 502, {
    error: 'temporarily_unavailable',
    error_description: timeout
      ? `the upstream ${upstream} did not answer in time (${code})`
      : `the upstream ${upstream} is unreachable (${code})`,
    upstream,
  });
}

function decode(bytes: Buffer, encoding: string | undefined): string {
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(bytes).toString('utf8');
    if (encoding === 'deflate') return inflateSync(bytes).toString('utf8');
    if (encoding === 'br') return brotliDecompressSync(bytes).toString('utf8');
  } catch {
    return '';
  }
  return bytes.toString('utf8');
}

function headerPairs(headers: Record<string, string | string[] | undefined>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name.toLowerCase(), v]);
  }
  return pairs;
}

function lookup(pairs: [string, string][]): (name: string) => string | undefined {
  return (name) => {
    const values = pairs.filter(([n]) => n === name).map(([, v]) => v);
    return values.length === 0 ? undefined : values.join(', ');
  };
}

/** The forwarding side of the mock. */
export interface Proxy {
  forward(request: MockRequest, path: string): Promise<MockResponse>;
  close(): Promise<void>;
}

/**
 * A proxy to `upstream` through undici: keep-alive connections, `DASVC_HTTP_TIMEOUT` (default
 * 30 s) for headers and between body chunks, and HTTP(S)_PROXY/NO_PROXY as the CLI honours them.
 */
export async function createProxy(
  upstream: string,
  taps: ProxyTap[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Proxy> {
  const undici = await import('undici');
  const fromEnv = Number(env.DASVC_HTTP_TIMEOUT);
  const timeout = fromEnv > 0 ? fromEnv * 1000 : 30_000;
  const limits = { headersTimeout: timeout, bodyTimeout: timeout, connect: { timeout } };
  const dispatcher: Dispatcher = PROXY_VARS.some((name) => env[name])
    ? new undici.EnvHttpProxyAgent(limits)
    : new undici.Agent({ ...limits, keepAliveTimeout: 10_000 });

  async function forward(request: MockRequest, path: string): Promise<MockResponse> {
    const url = `${upstream}${path}${request.query === '' ? '' : `?${request.query}`}`;
    const pairs = request.headerList?.() ?? [];
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    const body = hasBody ? await request.text(REQUEST_LIMIT) : '';
    let answer: Dispatcher.ResponseData;
    try {
      answer = await undici.request(url, {
        method: request.method as Dispatcher.HttpMethod,
        // content-length: undici sets it for the body it sends.
        headers: endToEndHeaders(pairs, ['content-length']),
        ...(hasBody ? { body } : {}),
        dispatcher,
      });
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw error;
      return upstreamFailure(upstream, error);
    }
    const responsePairs = headerPairs(answer.headers);
    const kept = endToEndHeaders(responsePairs);
    const rawHeaders: [string, string][] = [];
    for (let i = 0; i < kept.length; i += 2) rawHeaders.push([kept[i]!, kept[i + 1]!]);
    const exchange: Exchange = {
      method: request.method,
      path,
      query: request.query,
      requestHeader: lookup(pairs),
      requestBody: body,
      status: answer.statusCode,
      responseHeader: lookup(responsePairs),
    };
    const base = { status: answer.statusCode, headers: {}, body: '', rawHeaders };
    // Small bodies are read whole (one write is cheaper than a stream pipeline); large or
    // unsized ones stream on as they come, unless a tap needs them.
    const length = Number(answer.headers['content-length'] ?? Infinity);
    if (!(length <= SMALL_BODY) && !taps.some((tap) => tap.wantsBody(path))) {
      observe(exchange);
      return { ...base, stream: answer.body };
    }
    let bytes: Buffer;
    try {
      bytes = Buffer.from(await answer.body.arrayBuffer());
    } catch (error) {
      return upstreamFailure(upstream, error);
    }
    if (taps.some((tap) => tap.wantsBody(path))) {
      exchange.responseBody = decode(bytes, exchange.responseHeader('content-encoding'));
    }
    observe(exchange);
    return { ...base, stream: [bytes] };
  }

  function observe(exchange: Exchange): void {
    for (const tap of taps) {
      try {
        tap.observe(exchange);
      } catch {
        // A tap never changes or stops what passes; its own failures it reports itself.
      }
    }
  }

  let closing: Promise<void> | undefined;
  return { forward, close: () => (closing ??= dispatcher.close()) };
}
