/** What the authorization request carries (SERVICE.md §4.1, RFC 7636 §4.3). */
export interface AuthorizationRequest {
  authorizeUrl: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  codeChallenge?: string;
}

/** The URL the browser is sent to: the five SERVICE.md §4.1 parameters plus PKCE when given. */
export function buildAuthorizationUrl(request: AuthorizationRequest): string {
  const url = new URL(request.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', request.clientId);
  url.searchParams.set('redirect_uri', request.redirectUri);
  url.searchParams.set('scope', request.scope);
  url.searchParams.set('state', request.state);
  if (request.codeChallenge !== undefined) {
    url.searchParams.set('code_challenge', request.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

/** Loopback redirect URI (RFC 8252 §7.3): always 127.0.0.1, never `localhost`. */
export function loopbackRedirectUri(port: number): string {
  return `http://127.0.0.1:${port}/callback`;
}

/** A scope as SERVICE.md 2.5 writes it: instance IDs separated by single spaces. */
export function normalizeScope(scope: string): string {
  return scope.trim().split(/\s+/).join(' ');
}
