// `dasvc mock --proxy <upstream>` (SPEC §6): every service request goes to the real installation
// and its answer comes back unchanged, streamed. Taps (the recorder, the contract validator, the
// secret collector) see each exchange; when one wants the body, the answer is buffered first.
// This is the mock's hot path under --proxy: undici's dispatch API with raw header arrays, no
// fetch objects, nothing built for taps when there are none.
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { MockRequest, MockResponse } from '../core/types.js';
import { jsonResponse } from '../core/responses.js';
import { createEnvProxyAgent, proxySettings } from '../../http/proxy.js';
import { httpTimeoutMs } from '../../http/timeout.js';
import { answerHeaders, endToEndHeaders, rawHeader } from './proxy-headers.js';
import { decodeBody } from './decode-body.js';
import { type AskedNote, ProxyNotes } from './proxy-note.js';

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

/** Bodies up to this size (by Content-Length) are read whole before they are passed on. */
const SMALL_BODY = 64 * 1024;

/** undici sets the length of the body it sends. */
const REQUEST_EXTRA = new Set(['content-length']);

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

/** The forwarding side of the mock. */
export interface Proxy {
  forward(request: MockRequest, path: string): Promise<MockResponse>;
  close(): Promise<void>;
}

/** What every exchange of one proxy shares. */
interface Upstream {
  /** The upstream base URL as given (named in 502s). */
  url: string;
  taps: ProxyTap[];
  notes: ProxyNotes;
}

/**
 * One forwarded exchange, as undici's dispatch callbacks (the handler API that hands over the raw
 * header bytes: no header object, no body stream is built unless the answer streams on). Settles
 * with the answer once it is whole, or at its headers when its body streams. These are undici 7's
 * `onConnect`/`onHeaders`/… callbacks, marked deprecated in its types but the ones its Request
 * calls directly; the newer `onResponseStart` API parses every answer's headers into an object
 * first. A move to undici 8 revisits this class (the tests of mock-proxy-* cover it).
 */
class Forwarding implements Dispatcher.DispatchHandler {
  private abort: ((error?: Error) => void) | undefined;
  private resume: (() => void) | undefined;
  private status = 0;
  private statusText: string | undefined = undefined;
  private headers: string[] = [];
  private chunks: Buffer[] | undefined;
  private stream: Readable | undefined;
  private ended = false;
  /** Bytes read into `chunks`; past `spillAt` they stream on instead. */
  private size = 0;
  private spillAt = Infinity;

  constructor(
    private readonly upstream: Upstream,
    /** What the taps see, when there are taps. */
    private readonly exchange: Exchange | undefined,
    /** A tap wants the answer's body: it is buffered whatever its size. */
    private readonly wantsBody: boolean,
    private readonly settle: (response: MockResponse) => void,
    /** What the journal and the log are told (SPEC §8), once the answer completes it. */
    private readonly asked: AskedNote | undefined,
  ) {}

  onConnect(abort: (error?: Error) => void): void {
    this.abort = abort;
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void, statusText?: string): boolean {
    // undici hands informational answers (103 Early Hints) here too; the answer is the final one.
    if (status < 200) return true;
    this.status = status;
    // Passed on only when it can be written again: undici decodes it as UTF-8, so a latin-1 byte
    // comes out as U+FFFD, which node:http and fetch refuse (the standard phrase goes instead).
    this.statusText =
      statusText !== undefined && REASON_PHRASE.test(statusText) ? statusText : undefined;
    this.resume = resume;
    this.headers = answerHeaders(raw);
    // Small bodies are read whole (one write is cheaper than a stream pipeline); large or
    // unsized ones stream on as they come, unless a tap needs them.
    const length = Number(rawHeader(this.headers, 'content-length') ?? Infinity);
    if (length <= SMALL_BODY || this.wantsBody) {
      this.chunks = [];
      return true;
    }
    // An unsized answer (chunked) the journal may explain is read whole while it stays small.
    if (length === Infinity && this.asked) {
      this.chunks = [];
      this.spillAt = SMALL_BODY;
      return true;
    }
    this.streamOn([]);
    return true;
  }

  private streamOn(read: Buffer[]): void {
    this.stream = new Readable({
      read: () => this.resume?.(),
      destroy: (error, callback) => {
        // The client went away (or the pipe failed): the upstream exchange ends too.
        if (!this.ended) this.abort?.(error ?? new Error('client closed'));
        callback(error);
      },
    });
    for (const chunk of read) this.stream.push(chunk);
    this.answer([], this.stream);
  }

  onData(chunk: Buffer): boolean {
    if (this.chunks) {
      this.chunks.push(chunk);
      this.size += chunk.byteLength;
      if (this.size > this.spillAt) {
        const read = this.chunks;
        this.chunks = undefined;
        this.streamOn(read);
      }
      return true;
    }
    // false pauses undici's parser until the client drains (read() resumes it).
    return this.stream!.push(chunk);
  }

  onComplete(): void {
    this.ended = true;
    if (this.stream) {
      this.stream.push(null);
      return;
    }
    const chunks = this.chunks!;
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.answer([bytes], undefined, bytes);
  }

  onError(error: Error): void {
    this.ended = true;
    // Cut half-way while streaming: the client's connection is cut too (node-server does that).
    if (this.stream) this.stream.destroy(error);
    else
      this.settle({ ...upstreamFailure(this.upstream.url, error), note: { ...this.asked?.note } });
  }

  private answer(bytes: Buffer[], stream?: Readable, whole?: Buffer): void {
    const exchange = this.exchange;
    if (exchange) {
      exchange.status = this.status;
      const headers = this.headers;
      exchange.responseHeader = (name) => rawHeader(headers, name);
      if (whole && this.wantsBody) {
        exchange.responseBody = decodeBody(whole, rawHeader(headers, 'content-encoding'));
      }
      observe(this.upstream.taps, exchange);
    }
    const asked = this.asked;
    this.settle({
      status: this.status,
      headers: {},
      body: '',
      rawHeaders: this.headers,
      stream: stream ?? bytes,
      note: asked && this.upstream.notes.answer(asked, this.status, this.headers, whole),
      ...(this.statusText ? { statusMessage: this.statusText } : {}),
    });
  }
}

function observe(taps: ProxyTap[], exchange: Exchange): void {
  for (const tap of taps) {
    try {
      tap.observe(exchange);
    } catch {
      // A tap never changes or stops what passes; its own failures it reports itself.
    }
  }
}

/** Whether a request says it has a body (RFC 9112 §6.1: Content-Length above 0 or Transfer-Encoding). */
function declaresBody(raw: readonly string[]): boolean {
  const length = rawHeader(raw, 'content-length');
  return (
    (length !== undefined && length !== '0') || rawHeader(raw, 'transfer-encoding') !== undefined
  );
}

/** A reason phrase node:http and fetch accept (RFC 9112 §4: HTAB, SP, VCHAR; obs-text left out). */
const REASON_PHRASE = /^[\t\x20-\x7e]*$/;

/**
 * A proxy to `upstream` through undici: keep-alive connections, `DASVC_HTTP_TIMEOUT` (default
 * 30 s) for connect, headers and between body chunks, and HTTP(S)_PROXY/NO_PROXY as the CLI
 * honours them (SPEC §6).
 */
export async function createProxy(
  upstream: string,
  taps: ProxyTap[],
  env: NodeJS.ProcessEnv = process.env,
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
        requestBody:
          body === null
            ? ''
            : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
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
