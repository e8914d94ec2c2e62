const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** C0/C1 controls, DEL and any Unicode whitespace: never part of a redirect URI the mock follows. */
function hasUnsafeCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return /\s/u.test(value);
}

/**
 * Checks a redirect_uri. The mock has no registered redirect URIs, so it accepts any absolute
 * http(s) URL without fragment, userinfo, control characters or whitespace (RFC 6749 §3.1.2);
 * anything else is never redirected to. Returns a problem or undefined.
 */
export function redirectUriProblem(value: string): string | undefined {
  // Checked before parsing: new URL() silently strips tabs and line breaks.
  if (hasUnsafeCharacter(value)) {
    return 'redirect_uri must not contain control characters or whitespace';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'redirect_uri is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'redirect_uri must use http or https';
  }
  if (value.includes('#'))
    return 'redirect_uri must not contain a fragment (OAuth 2.0 allows none)';
  if (url.username !== '' || url.password !== '')
    return 'redirect_uri must not contain credentials';
  return undefined;
}

/**
 * `<redirect_uri>?state=<state>&code=<code>` (SERVICE.md 4.1); keeps any query of redirect_uri.
 * The base is redirect_uri as received, or its serialization when it holds non-ASCII text (a
 * Location is ASCII); each value is percent-encoded, unless `encoded` gives its text as the
 * request wrote it (`state`, echoed byte for byte). `redirectUri` must have passed
 * redirectUriProblem().
 */
export function buildRedirect(
  redirectUri: string,
  params: [string, string | undefined][],
  encoded: Partial<Record<string, string>> = {},
): string {
  // SPEC §5: `<redirect_uri>?…` — the URI as the request wrote it (no `/` added to a bare origin,
  // no case or dot-segment normalizing); only one with non-ASCII text takes the URL's ASCII form.
  const base = PRINTABLE_ASCII.test(redirectUri) ? redirectUri : new URL(redirectUri).href;
  const pairs = params
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([k, v]) => `${k}=${encoded[k] ?? encodeURIComponent(v)}`)
    .join('&');
  if (pairs === '') return base;
  const q = base.indexOf('?');
  const sep = q === -1 ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}${pairs}`;
}
