/** Parameter and member names whose values are secrets: never printed, never logged. */
export const SECRET_NAMES = new Set([
  'client_secret',
  'code',
  'code_verifier',
  // A plain PKCE challenge is the verifier itself (an S256 one tells nothing, masked alike).
  'code_challenge',
  'access_token',
  'refresh_token',
  'token',
  'id_token',
  'password',
  'secret',
  'state',
]);

export const REDACTED = '[redacted]';

/**
 * Whether a parameter or member holds a secret, however it is spelt: `Token`, `CLIENT_SECRET` and
 * a stray `?code` (from `??code=`) are not the service's names, but their values are still secrets
 * that a log must not show.
 */
function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name) || SECRET_NAMES.has(name.replace(/^\?+/, '').toLowerCase());
}

/** Hides the whole value: even a prefix of a bearer token is too much in a shared log. */
function mask(value: string): string {
  return value.length === 0 ? value : REDACTED;
}

/** A URL with a password in it (`http://user:pass@host`) and every secret query parameter masked. */
export function redactUrl(url: string): string {
  // Up to the last `@` before the path: a password may hold an `@` of its own.
  const shown = url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#]*@/i, `$1:${REDACTED}@`);
  const q = shown.indexOf('?');
  if (q === -1) return shown;
  return shown.slice(0, q + 1) + redactQuery(shown.slice(q + 1));
}

/** `a=1&code=xyz` → `a=1&code=[redacted]`; keeps order and encoding of the other pairs. */
export function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
      } catch {
        name = pair.slice(0, eq);
      }
      return isSecretName(name) ? `${pair.slice(0, eq)}=${mask(pair.slice(eq + 1))}` : pair;
    })
    .join('&');
}

/**
 * Header value as it may be shown: credentials in Authorization/Cookie are masked, and so are the
 * secret parameters of a redirect's Location (a code on its way to the redirect URI).
 */
export function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (lower === 'location' || lower === 'content-location') return redactUrl(value);
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const space = value.indexOf(' ');
    return space === -1 ? REDACTED : `${value.slice(0, space)} ${REDACTED}`;
  }
  if (lower === 'cookie' || lower === 'set-cookie') return REDACTED;
  return value;
}

/** Deep copy of a JSON value with secret members masked. */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value !== null && typeof value === 'object') {
    // fromEntries, not assignment: a member named `__proto__` stays a member of the copy.
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [
        key,
        isSecretName(key) && typeof member === 'string' ? mask(member) : redactJson(member),
      ]),
    );
  }
  return value;
}

/**
 * A request or response body as it may be shown: form bodies and JSON bodies get their secret
 * members masked; anything else is shown only by its length, since it cannot be inspected safely.
 */
export function redactBody(body: string, contentType = ''): string {
  if (body === '') return body;
  if (contentType.includes('application/x-www-form-urlencoded')) return redactQuery(body);
  try {
    return JSON.stringify(redactJson(JSON.parse(body)));
  } catch {
    return contentType.includes('text/') ? body : `<${Buffer.byteLength(body)} bytes>`;
  }
}
