/**
 * Checks a redirect_uri. The mock has no registered redirect URIs, so it accepts any absolute
 * http(s) URL without fragment or userinfo (RFC 6749 §3.1.2); anything else is never redirected to.
 * Returns a problem or undefined.
 */
export function redirectUriProblem(value: string): string | undefined {
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

/** `<redirect_uri>?state=<state>&code=<code>` (SERVICE.md 4.1); keeps any query of redirect_uri. */
export function buildRedirect(redirectUri: string, params: [string, string | undefined][]): string {
  const pairs = params
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  if (pairs === '') return redirectUri;
  const q = redirectUri.indexOf('?');
  const sep = q === -1 ? '?' : q === redirectUri.length - 1 || redirectUri.endsWith('&') ? '' : '&';
  return `${redirectUri}${sep}${pairs}`;
}
