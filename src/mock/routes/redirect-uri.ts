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
  if (value.includes('#')) return 'redirect_uri must not contain a fragment (RFC 6749 §3.1.2)';
  if (url.username !== '' || url.password !== '')
    return 'redirect_uri must not contain credentials';
  return undefined;
}

/**
 * `<redirect_uri>?state=<state>&code=<code>` (SERVICE.md 4.1); keeps any query of redirect_uri.
 * The base is the URL's serialization (`new URL().href`: ASCII only, so always a valid Location);
 * each value is percent-encoded, unless `encoded` gives its text as the request wrote it (`state`,
 * echoed byte for byte). `redirectUri` must have passed redirectUriProblem().
 */
export function buildRedirect(
  redirectUri: string,
  params: [string, string | undefined][],
  encoded: Partial<Record<string, string>> = {},
): string {
  const base = new URL(redirectUri).href;
  const pairs = params
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([k, v]) => `${k}=${encoded[k] ?? encodeURIComponent(v)}`)
    .join('&');
  if (pairs === '') return base;
  const q = base.indexOf('?');
  const sep = q === -1 ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${sep}${pairs}`;
}
