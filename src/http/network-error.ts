import { NetworkError } from '../errors.js';

/** What a failed exchange leaves behind: fetch's TypeError with a cause, or node:http's own error. */
interface FailureLike {
  name?: string;
  code?: string;
  message?: string;
  cause?: { code?: string; message?: string };
}

/**
 * The one place where a failed exchange becomes a NetworkError (SPEC §4, exit 4), for both
 * transports (node:http direct, undici through a proxy), without echoing anything secret: the
 * sentence names the origin only, never the path or query.
 */
export function networkErrorFrom(error: unknown, url: string, timeoutMs: number): NetworkError {
  const origin = safeOrigin(url);
  const err = error as FailureLike | undefined;
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return new NetworkError(`no answer from ${origin} within ${timeoutMs / 1000} s`, {
      code: 'timeout',
      cause: error,
    });
  }
  // fetch wraps the socket error as `cause`; node:http hands it over as is.
  const inner = err?.cause ?? (typeof err?.code === 'string' ? err : undefined);
  const code = inner?.code ?? 'fetch_failed';
  const detail = inner?.message ?? (error instanceof Error ? error.message : String(error));
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
