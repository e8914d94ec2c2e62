import { NetworkError } from '../errors.js';
import { sizeText } from '../util/bounded-bytes.js';
import { ResponseTooLargeError } from './response-limit.js';

/** What a failed exchange leaves behind: fetch's TypeError with a cause, or node:http's own error. */
interface FailureLike {
  name?: string;
  code?: unknown;
  message?: string;
  hostname?: string;
  cause?: SocketFailure;
}

/** A socket's own failure: its code, and where it was connecting (an address, or a host name). */
interface SocketFailure {
  /** A string from node and undici's socket errors; undici's own wrappers may carry a number. */
  code?: unknown;
  message?: string;
  hostname?: string;
  address?: string;
  port?: number;
}

/** What a network failure's `facts` hold: where it happened, for the CLI's hint. */
export interface NetworkFailure {
  /** Whether the request may have gone through a proxy (a proxy variable applies). */
  proxied: boolean;
  /** The proxy (without its credentials) that could not be reached, when it was the proxy's failure. */
  proxy?: string;
  /** What a timeout waited for: the connection, or the answer. */
  waited?: 'connection' | 'answer';
  /** A TLS failure because the certificate's issuer is not trusted here (self-signed, unknown CA). */
  untrustedIssuer?: boolean;
  /** The proxy refused for want of credentials (HTTP 407). */
  proxyAuth?: boolean;
}

/** A TLS failure in words, by OpenSSL's or node's code; undefined when the code is not about TLS. */
function tlsReason(code: string): string | undefined {
  if (code === 'CERT_HAS_EXPIRED') return 'its certificate has expired';
  if (code === 'CERT_NOT_YET_VALID') return 'its certificate is not valid yet';
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN')
    return 'its certificate is self-signed and not trusted here';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH')
    return 'its certificate is for another host name';
  if (code.startsWith('UNABLE_TO_') || code === 'CERT_UNTRUSTED')
    return "its certificate's issuer is not trusted here";
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO' || code.startsWith('ERR_SSL_'))
    return 'it did not answer in TLS (an http:// address given as https://?)';
  if (code.startsWith('ERR_TLS_') || code.startsWith('CERT_')) return 'the TLS handshake failed';
  return undefined;
}

/**
 * The one place where a failed exchange becomes a NetworkError (SPEC §4, exit 4), for both
 * transports: a sentence that says what happened (refused, reset, timed out, DNS, TLS) and where
 * (the URL without its query, which may carry secrets), a stable `code`, and the facts a hint
 * needs (NetworkFailure); never a library's code such as UND_ERR_SOCKET. `proxies` are the
 * proxies the request may have gone through: a failure to reach one of them is told as the proxy's.
 */
export function networkErrorFrom(
  error: unknown,
  url: string,
  timeoutMs: number,
  proxies: readonly string[] = [],
): NetworkError {
  const where = safeUrl(url);
  const err = error as FailureLike | undefined;
  // fetch wraps the socket error as `cause`; node:http hands it over as is.
  const inner: SocketFailure | undefined =
    err?.cause ?? (typeof err?.code === 'string' ? (err as SocketFailure) : undefined);
  // Through a proxy, dasvc connects to the proxy only: a refused, unresolvable or unreachable
  // connection there is the proxy's, and the sentence names it (never its credentials).
  const proxy = proxies.find((candidate) => failedAt(inner, candidate));
  const proxyAt = proxy === undefined ? undefined : safeUrl(proxy).replace(/\/$/, '');
  const to = proxyAt ? `the proxy ${proxyAt} for ${where}` : where;
  const make = (message: string, code: string, more: Omit<NetworkFailure, 'proxied'> = {}) => {
    const facts: NetworkFailure = {
      proxied: proxies.length > 0,
      ...(proxyAt === undefined ? {} : { proxy: proxyAt }),
      ...more,
    };
    return new NetworkError(message, { code, facts: { ...facts }, cause: error });
  };
  if (error instanceof ResponseTooLargeError) {
    return make(
      `the answer from ${where} is larger than ${sizeText(error.limit)}, the most dasvc reads of one answer; the rest was not read`,
      'response_too_large',
    );
  }
  // Before the timeout: undici's request tells a refused tunnel as an AbortError.
  const refusal = tunnelRefusal(error);
  if (refusal !== undefined) {
    // The proxy a request to this URL goes through (proxies[0]) refused to connect it there.
    const at = safeUrl(proxies[0] ?? '').replace(/\/$/, '');
    const auth = refusal === 407;
    return make(
      `the proxy ${at} refused to connect to ${where}: it answered HTTP ${refusal}${auth ? ' (Proxy Authentication Required)' : ''}`,
      'proxy_refused',
      { proxy: at, ...(auth ? { proxyAuth: true } : {}) },
    );
  }
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return make(`no answer from ${where} within ${timeoutMs / 1000} s (timed out)`, 'timeout', {
      waited: 'answer',
    });
  }
  const code = typeof inner?.code === 'string' ? inner.code : '';
  // Where the connection failed: the proxy, else where the socket says (a proxy may have been
  // bypassed, or the host name may have several addresses), else the URL's host.
  const host = proxy
    ? hostOf(proxy)
    : proxies.length > 0 && inner?.address && inner.port
      ? `${inner.address}:${inner.port}`
      : hostOf(url);
  if (code === 'ECONNREFUSED')
    return make(
      `cannot connect to ${to}: connection refused (nothing listens at ${host})`,
      'connection_refused',
    );
  if (['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(code))
    return make(
      `the connection to ${where} was closed before the answer came (connection reset)`,
      'connection_reset',
    );
  if (['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT'].includes(code))
    return make(`connecting to ${to} timed out`, 'timeout', { waited: 'connection' });
  if (['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA'].includes(code))
    return make(
      `cannot find the host ${host} (DNS lookup ${code === 'EAI_AGAIN' ? 'failed for now' : 'found no such name'}) for ${to}`,
      'dns',
    );
  if (['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'].includes(code))
    return make(`cannot reach ${to}: no route to ${host}`, 'unreachable');
  const tls = tlsReason(code);
  if (tls)
    return make(`TLS with ${host} failed for ${where}: ${tls}`, 'tls', {
      ...(code.includes('SELF_SIGNED') || code.startsWith('UNABLE_TO')
        ? { untrustedIssuer: true }
        : {}),
    });
  return make(`the exchange with ${where} failed: ${plainReason(inner, error)}`, 'network');
}

/** undici's words when a proxy answers its CONNECT with another status than 200. */
const TUNNEL_REFUSED = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/;

/** The status a proxy refused the tunnel with, found down the chain of causes; else undefined. */
export function tunnelRefusal(error: unknown): number | undefined {
  let failure = error;
  for (let depth = 0; depth < 4 && typeof failure === 'object' && failure !== null; depth += 1) {
    const { message, cause } = failure as { message?: unknown; cause?: unknown };
    const match = typeof message === 'string' ? TUNNEL_REFUSED.exec(message) : null;
    if (match) return Number(match[1]);
    failure = cause;
  }
  return undefined;
}

/** The failure's own words without a library's code in them. */
function plainReason(inner: FailureLike['cause'], error: unknown): string {
  const text = inner?.message ?? (error instanceof Error ? error.message : String(error));
  return text.replace(/\b(?:UND_ERR|ERR)_[A-Z_]+\b:?\s*/g, '').trim() || 'the connection failed';
}

/** Whether the socket failure happened on the way to `proxy` (its host name, or its address). */
function failedAt(failure: SocketFailure | undefined, proxy: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(proxy);
  } catch {
    return false;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (failure?.hostname !== undefined) return failure.hostname === host;
  const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  return failure?.address === host && failure.port === port;
}

function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the service';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the host';
  }
}
