import { InterruptedError } from '../errors.js';
import { sendDirect } from './direct.js';
import { networkErrorFrom } from './network-error.js';
import { httpTimeoutMs } from './timeout.js';
import { proxySettings, proxyUrls, sendThroughProxy } from './proxy.js';
import { RESPONSE_LIMIT } from './response-limit.js';
import { maskedResponse, requestSecrets } from './request-secrets.js';
import type { SecretValues } from '../util/secret-values.js';
import type { HttpRequest, HttpResponse, SendFn } from './types.js';
import type { Env } from '../util/env.js';

export interface HttpClientOptions {
  env?: Env;
  timeoutMs?: number;
  /** Receives `--verbose` lines (already redacted); absent → no trace. */
  trace?: (line: string) => void;
  /**
   * For short-lived processes (the CLI): when a request goes through undici (a proxy is set), turn off
   * V8's WASM tier-up first, so that the process does not linger after the answer while V8
   * recompiles undici's HTTP parser. Direct requests (node:http) have no WASM and need no flag.
   * Libraries embedding dasvc leave it off: V8 flags are process-wide.
   */
  shortLived?: boolean;
  /** Ends an exchange under way (Ctrl-C): it then rejects with InterruptedError. */
  signal?: AbortSignal;
  /**
   * The most bytes of one answer's body that are read (default 64 MiB, RESPONSE_LIMIT): past it
   * the exchange is cut and fails with a NetworkError (`response_too_large`, exit 4).
   */
  maxResponseBytes?: number;
}

let tuned = false;

function tuneForShortProcess(): void {
  if (tuned) return;
  tuned = true;
  // Node's bundled undici (global fetch, Headers) is loaded first: V8 rejects a builtin's code
  // cache compiled under other flags, and recompiling it costs start-up.
  void globalThis.Headers;
  const v8 = process.getBuiltinModule('node:v8');
  for (const flag of ['--no-wasm-tier-up', '--no-wasm-dynamic-tiering', '--wasm-lazy-compilation'])
    v8.setFlagsFromString(flag);
}

/**
 * All outgoing HTTP of dasvc goes through here: one timeout, one limit on an answer's size, no
 * redirects followed, optional trace. With no proxy variable set, every request goes over
 * node:http/https; with one set, every request goes through undici's EnvHttpProxyAgent, which
 * decides by its own rules which go through the proxy and which go direct (SPEC §1: NO_PROXY).
 * Both fail with the same NetworkError sentences.
 */
export function createHttpClient(options: HttpClientOptions = {}): SendFn {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? httpTimeoutMs(env);
  const limit = options.maxResponseBytes ?? RESPONSE_LIMIT;
  // The trace (and its redaction) is loaded only for --verbose.
  const tracing = options.trace ? import('./trace.js') : undefined;
  return async (original: HttpRequest): Promise<HttpResponse> => {
    // A refusal may echo what was sent: its secrets are masked before anyone reads it, so no
    // error message, hint, trace or report can carry them. Success answers stay whole (a refresh
    // without rotation answers the refresh token it was sent).
    let secrets: SecretValues | undefined;
    const known = () => (secrets ??= requestSecrets(original));
    const shown = (answer: HttpResponse) =>
      isRefusal(answer) ? maskedResponse(answer, known()) : answer;
    const onAnswer = original.onAnswer;
    const request = onAnswer
      ? { ...original, onAnswer: (answer: HttpResponse) => onAnswer(shown(answer)) }
      : original;
    const tracer = tracing && (await tracing);
    const trace =
      tracer && options.trace
        ? (line: string) => options.trace!(known().maskText(line))
        : undefined;
    if (tracer && trace) for (const line of tracer.traceRequest(request)) trace(line);
    const started = performance.now();
    let response: HttpResponse;
    if (options.signal?.aborted) throw new InterruptedError('interrupted');
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    const proxies = proxySettings(env);
    try {
      if (proxies && options.shortLived) tuneForShortProcess();
      response = proxies
        ? await sendThroughProxy(request, proxies, signal, limit)
        : await sendDirect(request, signal, limit);
    } catch (error) {
      if (options.signal?.aborted) {
        options.trace?.('< interrupted');
        throw new InterruptedError('interrupted', { cause: error });
      }
      const networkError = networkErrorFrom(
        error,
        request.url,
        timeoutMs,
        proxyUrls(proxies, request.url),
      );
      options.trace?.(`< no answer: ${networkError.message}`);
      throw networkError;
    }
    response = shown(response);
    if (tracer && trace)
      for (const line of tracer.traceResponse(response, performance.now() - started)) trace(line);
    return response;
  };
}

/**
 * An answer that refuses: an HTTP error, or a body with an `error` member — an OAuth error sent
 * with 200 (SERVICE.md shows no error status) or a JSON-RPC error. A success never carries one.
 */
function isRefusal(answer: HttpResponse): boolean {
  return answer.status >= 400 || answer.text.includes('"error"');
}
