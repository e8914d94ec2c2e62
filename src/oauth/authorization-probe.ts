import { NetworkError, ServiceError } from '../errors.js';
import { oauthErrorClass } from './token-response.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { isObject } from '../util/guards.js';
import { pageText } from '../util/html-text.js';
import { printable } from '../util/printable.js';

/** What the authorization endpoint's first answer means for the login. */
export type ProbeOutcome =
  /** A page for the person (login, consent) or a redirect elsewhere: the browser goes on from here. */
  | { kind: 'page' }
  /** A redirect back to the redirect URI (a code or an error): read like the loopback's. */
  | { kind: 'redirect'; location: string };

/** The most of the service's own words a message quotes. */
const MAX_WORDS = 300;

/** The error codes of RFC 6749 §4.1.2.1 (and invalid_client), as an error page may name them. */
const AUTHORIZATION_ERRORS =
  /\b(invalid_request|invalid_client|unauthorized_client|access_denied|unsupported_response_type|invalid_scope|server_error|temporarily_unavailable)\b/;

/**
 * The authorization request (SERVICE.md §4.1) as the browser would send it, once, before anyone
 * waits on it: no cookies, no redirect followed, so that the answer itself is seen.
 */
export function buildProbeRequest(authorizationUrl: string): HttpRequest {
  return {
    method: 'GET',
    url: authorizationUrl,
    headers: { accept: 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8' },
  };
}

/**
 * Reads the authorization endpoint's answer to the probe (RFC 6749 §4.1.2, §4.1.2.1): a page or a
 * redirect elsewhere goes on in the browser; a redirect to `redirectUri` is handed back to be read
 * as the redirect (state first); an OAuth error or a 401/403 throws AuthError (exit 3, as an
 * error redirect does), a 5xx ServiceError (exit 1), another error page NetworkError (exit 4: not
 * the answer expected), each with the service's own words.
 */
export function processProbeResponse(
  response: HttpResponse,
  authorizationUrl: string,
  redirectUri: string,
): ProbeOutcome {
  const { status } = response;
  if (status >= 300 && status < 400) {
    const location = response.headers.location;
    if (location === undefined) return { kind: 'page' };
    let target: URL;
    try {
      target = new URL(location, authorizationUrl);
    } catch {
      return { kind: 'page' };
    }
    return sameEndpoint(target, redirectUri)
      ? { kind: 'redirect', location: target.href }
      : { kind: 'page' };
  }
  const oauth = oauthError(response.text);
  if (status < 400 && oauth === undefined) return { kind: 'page' };
  const words = serviceWords(response, oauth);
  const code = oauth?.error ?? AUTHORIZATION_ERRORS.exec(words)?.[1] ?? `http_${status}`;
  const options = { code, status, ...(oauth?.description ? { detail: oauth.description } : {}) };
  const said = words === '' ? '' : `: ${words}`;
  if (status >= 500)
    throw new ServiceError(`the authorization endpoint failed (HTTP ${status})${said}`, options);
  // An error page that names no OAuth error and is no refusal of the client, or a 404 whatever its
  // body (the installation has no authorization endpoint there), is not the answer expected.
  if ((code === `http_${status}` || status === 404) && status !== 401 && status !== 403)
    throw new NetworkError(
      `no authorization page at ${authorizationUrl.split('?')[0]} (HTTP ${status})${said}`,
      {
        ...options,
        code: 'no_authorization_page',
        facts: { authorizeUrl: authorizationUrl.split('?')[0] },
      },
    );
  // Which endpoint refused: a client refused here was refused by its id, no secret being sent yet.
  // As at the token endpoint, only a refusal of the client or the user is authentication (exit 3);
  // another OAuth error (invalid_request, unsupported_response_type) is the service's (exit 1).
  const Kind = oauthErrorClass(code, status);
  throw new Kind(`the authorization endpoint refused the request (HTTP ${status})${said}`, {
    ...options,
    facts: { endpoint: 'authorization' },
  });
}

/** Whether `target` is the redirect URI itself (its query aside). */
function sameEndpoint(target: URL, redirectUri: string): boolean {
  const expected = new URL(redirectUri);
  return (
    target.protocol === expected.protocol &&
    target.host === expected.host &&
    target.pathname === expected.pathname
  );
}

/** An RFC 6749 §5.2-shaped JSON error body, when the answer is one. */
function oauthError(text: string): { error: string; description?: string } | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!isObject(body) || typeof body.error !== 'string' || body.error === '') return undefined;
  return {
    error: body.error.slice(0, 80),
    ...(typeof body.error_description === 'string' ? { description: body.error_description } : {}),
  };
}

/**
 * What the service said, for one line of a message: the OAuth error and its description, an HTML
 * page's text (its title when the body has none), or a plain body; bounded, control characters
 * escaped.
 */
function serviceWords(
  response: HttpResponse,
  oauth: { error: string; description?: string } | undefined,
): string {
  let words: string;
  if (oauth) words = `${oauth.error}${oauth.description ? ` (${oauth.description})` : ''}`;
  else if (/html/i.test(response.headers['content-type'] ?? '') || /^\s*</.test(response.text)) {
    const page = pageText(response.text.slice(0, 64 * 1024));
    words = page.lines.length > 0 ? page.lines.join(' · ') : page.title;
  } else words = response.text.replace(/\s+/g, ' ').trim();
  if (words.length > MAX_WORDS) words = `${words.slice(0, MAX_WORDS - 1)}…`;
  return printable(words);
}

/** The redirect of a probe that carries neither a code nor an error: nothing a browser could finish. */
export function emptyRedirectError(): NetworkError {
  return new NetworkError(
    'the authorization endpoint redirected to the redirect URI with neither a code nor an error',
    { code: 'unexpected_response' },
  );
}
