// One forwarded exchange of `dasvc mock --proxy`: the upstream's answer passed on unchanged,
// small ones read whole and large ones streamed, and shown to the taps once it is in. This is
// the proxy's hot path: undici's dispatch API with raw header arrays, no fetch objects.
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { MockResponse } from '../core/types.js';
import { jsonResponse } from '../core/responses.js';
import { tunnelRefusal } from '../../http/network-error.js';
import { answerHeaders, rawHeader } from './proxy-headers.js';
import { TAPPED_LIMIT } from './bounds.js';
import { decodeBody } from './decode-body.js';
import type { AskedNote, ProxyNotes } from './proxy-note.js';
import { observeAll, type Exchange, type ProxyTap } from './proxy-tap.js';

/** Bodies up to this size (by Content-Length) are read whole before they are passed on. */
const SMALL_BODY = 64 * 1024;

/**
 * 502 (504 on a timeout) with an RFC 6749-shaped body naming the upstream, and the proxy of
 * HTTP(S)_PROXY when that refused the tunnel to it.
 */
export function upstreamFailure(upstream: string, error: unknown): MockResponse {
  const failure = error as { code?: unknown; name?: unknown };
  const code =
    typeof failure.code === 'string'
      ? failure.code
      : typeof failure.name === 'string'
        ? failure.name
        : 'error';
  const timeout = /TIMEOUT/i.test(code);
  const refused = tunnelRefusal(error);
  return jsonResponse(timeout ? 504 : 502, {
    error: 'temporarily_unavailable',
    error_description: timeout
      ? `the upstream ${upstream} did not answer in time (${code})`
      : refused !== undefined
        ? `the upstream ${upstream} is unreachable: the proxy refused to connect to it (HTTP ${refused})`
        : `the upstream ${upstream} is unreachable (${code})`,
    upstream,
  });
}

/** What every exchange of one proxy shares. */
export interface Upstream {
  /** The upstream base URL as given (named in 502s). */
  url: string;
  taps: ProxyTap[];
  notes: ProxyNotes;
}

/** A reason phrase node:http and fetch accept (RFC 9112 §4: HTAB, SP, VCHAR; obs-text left out). */
const REASON_PHRASE = /^[\t\x20-\x7e]*$/;

/**
 * One forwarded exchange, as undici's dispatch callbacks (the handler API that hands over the raw
 * header bytes: no header object, no body stream is built unless the answer streams on). Settles
 * with the answer once it is whole, or at its headers when its body streams. These are undici 7's
 * `onConnect`/`onHeaders`/… callbacks, marked deprecated in its types but the ones its Request
 * calls directly; the newer `onResponseStart` API parses every answer's headers into an object
 * first. A move to undici 8 revisits this class (the tests of mock-proxy-* cover it).
 */
export class Forwarding implements Dispatcher.DispatchHandler {
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
    /** What the journal and the log are told, once the answer completes it. */
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
      if (this.wantsBody) this.spillAt = TAPPED_LIMIT;
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
      if (this.wantsBody) {
        const text =
          whole && decodeBody(whole, rawHeader(headers, 'content-encoding'), TAPPED_LIMIT);
        if (text === undefined) exchange.responseTooLarge = true;
        else exchange.responseBody = text;
      }
      observeAll(this.upstream.taps, exchange);
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
