import { InterruptedError, NetworkError } from '../errors.js';
import type { HttpRequest, HttpResponse, SendFn } from './types.js';

/** Default time limit of one HTTP exchange; `DASVC_HTTP_TIMEOUT` (seconds) overrides it. */
const DEFAULT_TIMEOUT_MS = 30_000;

export interface HttpClientOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Receives `--verbose` lines (already redacted); absent → no trace. */
  trace?: (line: string) => void;
  /**
   * For short-lived processes (the CLI): turn off V8's WASM tier-up before the first request, so the
   * process does not linger ~100 ms after the answer while V8 recompiles undici's HTTP parser.
   * Libraries embedding dasvc leave it off: V8 flags are process-wide.
   */
  shortLived?: boolean;
  /** Ends an exchange under way (Ctrl-C): it then rejects with InterruptedError. */
  signal?: AbortSignal;
}

let tuned = false;

async function tuneForShortProcess(): Promise<void> {
  if (tuned) return;
  tuned = true;
  const v8 = await import('node:v8');
  for (const flag of ['--no-wasm-tier-up', '--no-wasm-dynamic-tiering', '--wasm-lazy-compilation'])
    v8.setFlagsFromString(flag);
}

const PROXY_VARS = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'];

type FetchLike = (url: string, init: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

/**
 * Chooses the fetch: Node's global fetch (undici, bundled: no extra start-up cost) unless a proxy
 * variable is set, in which case the `undici` package is loaded for `EnvHttpProxyAgent`, which
 * honours HTTP_PROXY/HTTPS_PROXY/NO_PROXY.
 */
async function chooseFetch(env: NodeJS.ProcessEnv): Promise<FetchLike> {
  if (!PROXY_VARS.some((name) => env[name])) return globalThis.fetch as FetchLike;
  const undici = await import('undici');
  const dispatcher = new undici.EnvHttpProxyAgent();
  return (url, init) =>
    undici.fetch(url, { ...(init as object), dispatcher } as never) as unknown as Promise<Response>;
}

/** Maps a failed fetch to NetworkError (SPEC §4 exit 4) without echoing anything secret. */
function networkErrorFrom(error: unknown, url: string, timeoutMs: number): NetworkError {
  const origin = safeOrigin(url);
  const err = error as { name?: string; cause?: { code?: string; message?: string } } | undefined;
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return new NetworkError(`no answer from ${origin} within ${timeoutMs / 1000} s`, {
      code: 'timeout',
      cause: error,
    });
  }
  const code = err?.cause?.code ?? 'fetch_failed';
  const detail = err?.cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new NetworkError(`cannot reach ${origin}: ${code === 'fetch_failed' ? detail : code}`, {
    code,
    cause: error,
  });
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the service';
  }
}

/** All outgoing HTTP of dasvc goes through here: one timeout, no redirects followed, optional trace. */
export function createHttpClient(options: HttpClientOptions = {}): SendFn {
  const env = options.env ?? process.env;
  const fromEnv = Number(env.DASVC_HTTP_TIMEOUT);
  const timeoutMs = options.timeoutMs ?? (fromEnv > 0 ? fromEnv * 1000 : DEFAULT_TIMEOUT_MS);
  let fetchPromise: Promise<FetchLike> | undefined;
  // The trace (and its redaction) is loaded only for --verbose.
  const tracing = options.trace ? import('./trace.js') : undefined;
  return async (request: HttpRequest): Promise<HttpResponse> => {
    if (options.shortLived) await tuneForShortProcess();
    fetchPromise ??= chooseFetch(env);
    const doFetch = await fetchPromise;
    const tracer = tracing && (await tracing);
    if (tracer && options.trace)
      for (const line of tracer.traceRequest(request)) options.trace(line);
    const started = performance.now();
    let response: HttpResponse;
    if (options.signal?.aborted) throw new InterruptedError('interrupted');
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const res = await doFetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
      });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name] = value;
      });
      response = { status: res.status, headers, text: await res.text() };
    } catch (error) {
      if (options.signal?.aborted) {
        options.trace?.('< interrupted');
        throw new InterruptedError('interrupted', { cause: error });
      }
      const networkError = networkErrorFrom(error, request.url, timeoutMs);
      options.trace?.(`< no answer: ${networkError.message}`);
      throw networkError;
    }
    if (tracer && options.trace)
      for (const line of tracer.traceResponse(response, performance.now() - started))
        options.trace(line);
    return response;
  };
}
