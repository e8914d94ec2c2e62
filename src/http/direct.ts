import { BoundedBytes } from '../util/bounded-bytes.js';
import { bodyText, flatHeaders } from './answer-text.js';
import { ResponseTooLargeError } from './response-limit.js';
import type { HttpRequest, HttpResponse } from './types.js';

/**
 * One exchange straight over node:http/https (no proxy applies): it spares the
 * start-up the first global fetch() pays to load Node's bundled undici. Like fetch with
 * `redirect: 'manual'`: no redirect followed, lower-cased headers, the body as UTF-8 text.
 * Rejects with node's own error (ECONNREFUSED …) or, once `signal` aborts, with its reason.
 */
export function sendDirect(
  request: HttpRequest,
  signal: AbortSignal,
  /** Past this many bytes of body the exchange ends with ResponseTooLargeError. */
  limit: number,
): Promise<HttpResponse> {
  const url = new URL(request.url);
  // node:https (and TLS with it) only for https URLs.
  const transport =
    url.protocol === 'https:'
      ? process.getBuiltinModule('node:https')
      : process.getBuiltinModule('node:http');
  const headers: Record<string, string> = { accept: '*/*', ...request.headers };
  if (request.body !== undefined)
    headers['content-length'] = String(Buffer.byteLength(request.body));
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method: request.method, headers });
    const onAbort = () => {
      reject(signal.reason);
      req.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const fail = (error: unknown) => {
      signal.removeEventListener('abort', onAbort);
      reject(error);
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const body = new BoundedBytes(limit);
      const length = Number(res.headers['content-length'] ?? Number.NaN);
      // Counted as it streams (a declared length past the limit ends it before any byte): the
      // connection is cut there, and nothing more is read.
      const tooLarge = () => {
        res.removeAllListeners('data');
        fail(new ResponseTooLargeError(limit));
        req.destroy();
      };
      if (length > limit) return tooLarge();
      let answer: HttpResponse | undefined;
      const whole = (): HttpResponse => {
        if (answer) return answer;
        answer = {
          status: res.statusCode ?? 0,
          headers: flatHeaders(res.headers),
          text: bodyText(body.bytes()),
        };
        request.onAnswer?.(answer);
        return answer;
      };
      res.on('data', (chunk: Buffer) => {
        if (!body.add(chunk)) return tooLarge();
        // The last byte of a Content-Length body: the answer is whole now.
        if (body.size === length && request.onAnswer) whole();
      });
      res.on('error', fail);
      // Starts reading now rather than on the next tick: the body that follows the head in the
      // same packet then arrives as 'data' at once, and `onAnswer` runs before anything else.
      if (request.onAnswer) res.read(0);
      res.on('end', () => {
        signal.removeEventListener('abort', onAbort);
        resolve(whole());
      });
    });
    if (signal.aborted) onAbort();
    else req.end(request.body);
  });
}
