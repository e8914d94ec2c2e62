import { AuthError, NetworkError, ServiceError, snakeCode } from '../errors.js';
import type { HttpResponse } from '../http/types.js';
import { MAX_DURATION_SECONDS } from '../util/duration.js';
import { isObject } from '../util/guards.js';
import { printable } from '../util/printable.js';

/** Tokens as stored: absolute expiry in epoch ms, or null when the server gave no `expires_in`. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: number | null;
  obtainedAt: number;
}

/** The OAuth error codes that are about authentication or authorization (SPEC §4: exit 3). */
const AUTH_ERRORS: ReadonlySet<string> = new Set([
  'invalid_grant',
  'invalid_client',
  'unauthorized_client',
  'invalid_token',
  'access_denied',
  // What the user may access is authorization, as in the redirect (SPEC §4: exit 3).
  'invalid_scope',
]);

/**
 * The error an OAuth error answer is, at any endpoint: a refusal of the client or the user is
 * authentication (exit 3), any other the service's (exit 1). The code is read as it is kept, in
 * snake_case (`Invalid-Grant` is invalid_grant).
 */
export function oauthErrorClass(
  code: string,
  status: number,
): typeof AuthError | typeof ServiceError {
  return AUTH_ERRORS.has(snakeCode(code)) || status === 401 || status === 403
    ? AuthError
    : ServiceError;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The error answer as JSON; a `text/plain` body holding a bare error code (installations with the
 * errorBody quirk, SPEC §7) reads as `{"error": code}`, so that it maps to the same exit code.
 */
function errorBody(response: HttpResponse): unknown {
  const text = response.text.trim();
  const plain = /^text\/plain/i.test(response.headers['content-type'] ?? '');
  if (plain && response.status >= 400 && /^[a-z][a-z0-9_]*$/.test(text)) return { error: text };
  return parseJson(response.text);
}

/**
 * Turns an OAuth error answer into the right exit code (SPEC §4): authentication errors and
 * 401/403 → AuthError (3); other OAuth errors and 5xx → ServiceError (1); anything that is not
 * JSON → NetworkError (4). `what` names the step for the message.
 */
function oauthErrorFor(response: HttpResponse, what: string): Error {
  const body = errorBody(response);
  const status = response.status;
  if (isObject(body) && typeof body.error === 'string') {
    const description =
      typeof body.error_description === 'string' ? body.error_description : undefined;
    // The service's words on the message's one line: a line break would forge a line of dasvc's.
    const message = `${what} refused: ${printable(body.error)}${description ? ` (${printable(description)})` : ''} [HTTP ${status}]`;
    const facts = { request: what, status };
    const options = { code: body.error, status, detail: description, facts };
    return new (oauthErrorClass(body.error, status))(message, options);
  }
  if (status === 401 || status === 403) {
    return new AuthError(`${what} refused: HTTP ${status}`, { code: `http_${status}`, status });
  }
  if (status >= 500)
    return new ServiceError(`${what} failed: HTTP ${status}`, { code: `http_${status}`, status });
  return new NetworkError(`${what}: unexpected answer (HTTP ${status}, not the JSON expected)`, {
    code: 'unexpected_response',
    status,
    facts: { request: what, status },
  });
}

/**
 * A token as RFC 6749 allows it (Appendix A.12, A.17: VSCHAR, printable ASCII): one with control
 * characters or escape sequences would drive the terminal that `token print` writes it to.
 */
const VSCHARS = /^[\x20-\x7e]+$/;

function expiresInSeconds(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
}

/**
 * Reads `expires_in` (RFC 6749 §5.1) as seconds, from a number or a numeric string. Anything else,
 * and anything beyond 100 years (`1e300` would make an expiry no Date can hold), is unknown.
 */
export function readExpiresIn(value: unknown): number | null {
  const n = expiresInSeconds(value);
  return n >= 0 && n <= MAX_DURATION_SECONDS ? n : null;
}

/**
 * Checks a token or refresh response (SERVICE.md §2.3, RFC 6749 §5.1–5.2) and returns the tokens
 * with an absolute expiry. Extra members are ignored; a missing refresh_token keeps `previous`.
 * An `expires_in` present but unusable (beyond 100 years, negative, not a number) makes the expiry
 * unknown, and `notice` is told so.
 */
export function processTokenResponse(
  response: HttpResponse,
  now: number,
  what = 'token request',
  previousRefreshToken: string | null = null,
  notice: (message: string) => void = () => {},
): TokenSet {
  if (response.status !== 200 && response.status !== 201) throw oauthErrorFor(response, what);
  const body = parseJson(response.text);
  if (!isObject(body)) {
    throw new NetworkError(`${what}: the answer is not a JSON object`, {
      code: 'unexpected_response',
      status: response.status,
    });
  }
  if (typeof body.error === 'string') throw oauthErrorFor(response, what);
  if (typeof body.access_token !== 'string' || body.access_token === '') {
    throw new NetworkError(`${what}: the answer has no access_token`, {
      code: 'unexpected_response',
      status: response.status,
    });
  }
  for (const member of ['access_token', 'refresh_token'] as const) {
    const token = body[member];
    // An empty refresh_token is none (the previous one is kept, below).
    if (typeof token === 'string' && token !== '' && !VSCHARS.test(token)) {
      throw new NetworkError(
        `${what}: the answer's ${member} holds characters a token cannot have (RFC 6749: visible ASCII only)`,
        { code: 'unexpected_response', status: response.status },
      );
    }
  }
  const expiresIn = readExpiresIn(body.expires_in);
  if (expiresIn === null && body.expires_in !== undefined && body.expires_in !== null) {
    const seconds = expiresInSeconds(body.expires_in);
    const why = seconds > MAX_DURATION_SECONDS ? 'beyond 100 years' : 'not a number of seconds';
    notice(
      `${what}: the service sent expires_in ${JSON.stringify(body.expires_in).slice(0, 40)}, ${why}; the expiry is treated as unknown`,
    );
  }
  return {
    accessToken: body.access_token,
    refreshToken:
      typeof body.refresh_token === 'string' && body.refresh_token !== ''
        ? body.refresh_token
        : previousRefreshToken,
    expiresAt: expiresIn === null ? null : now + Math.round(expiresIn * 1000),
    obtainedAt: now,
  };
}

/**
 * Checks a revoke answer (SERVICE.md §2.4, RFC 7009 §2.2): confirmed only on HTTP 200 without an
 * `error` member. Returns the body as received (`{"result":"Token revoked"}`), or null when the
 * service sent none (RFC 7009 allows an empty 200). A body that is not a JSON object is refused.
 */
export function processRevocationResponse(response: HttpResponse): Record<string, unknown> | null {
  if (response.status !== 200) throw oauthErrorFor(response, 'revoke request');
  if (response.text.trim() === '') return null;
  const body = parseJson(response.text);
  if (!isObject(body)) {
    throw new NetworkError('revoke request: the answer is not the JSON object expected', {
      code: 'unexpected_response',
      status: 200,
    });
  }
  if (body.error !== undefined) throw oauthErrorFor(response, 'revoke request');
  return body;
}
