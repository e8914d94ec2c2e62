import type { HttpRequest } from '../http/types.js';
import type { ParamsPlacement } from './endpoints.js';

/** The client credentials SERVICE.md §5.1 requires on the token, refresh and revoke requests. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** The credentials SERVICE.md §5.1 sends first on every token, refresh and revoke request. */
function clientParams(client: ClientCredentials): Record<string, string> {
  return { client_id: client.clientId, client_secret: client.clientSecret };
}

/**
 * One OAuth endpoint request, always POST (SERVICE.md leaves the method open; POST keeps the body
 * option standard): parameters in the query string (SERVICE.md §4, the default) or in an
 * x-www-form-urlencoded body (RFC 6749 §4.1.3 for standard servers).
 */
export function buildOAuthRequest(
  url: string,
  params: Record<string, string | undefined>,
  placement: ParamsPlacement,
): HttpRequest {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) form.set(name, value);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (placement === 'body') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { method: 'POST', url, headers, body: form.toString() };
  }
  const target = new URL(url);
  for (const [name, value] of form) target.searchParams.set(name, value);
  return { method: 'POST', url: target.toString(), headers };
}

/** Token request (SERVICE.md §4.2; `redirect_uri` per RFC 6749 §4.1.3; `code_verifier` per RFC 7636 §4.5). */
export function buildTokenRequest(options: {
  url: string;
  client: ClientCredentials;
  code: string;
  redirectUri: string;
  codeVerifier?: string;
  placement: ParamsPlacement;
}): HttpRequest {
  return buildOAuthRequest(
    options.url,
    {
      ...clientParams(options.client),
      grant_type: 'authorization_code',
      code: options.code,
      redirect_uri: options.redirectUri,
      code_verifier: options.codeVerifier,
    },
    options.placement,
  );
}

/** Refresh token request (SERVICE.md §4.3, RFC 6749 §6). */
export function buildRefreshRequest(options: {
  url: string;
  client: ClientCredentials;
  refreshToken: string;
  placement: ParamsPlacement;
}): HttpRequest {
  return buildOAuthRequest(
    options.url,
    {
      ...clientParams(options.client),
      grant_type: 'refresh_token',
      refresh_token: options.refreshToken,
    },
    options.placement,
  );
}

/** Which kind of token a revoke names (SERVICE.md §4.4, RFC 7009 §2.1). */
export type TokenTypeHint = 'access_token' | 'refresh_token';

/** Revoke token request (SERVICE.md §4.4, RFC 7009 §2.1). */
export function buildRevocationRequest(options: {
  url: string;
  client: ClientCredentials;
  token: string;
  hint: TokenTypeHint;
  placement: ParamsPlacement;
}): HttpRequest {
  return buildOAuthRequest(
    options.url,
    {
      ...clientParams(options.client),
      token_type_hint: options.hint,
      token: options.token,
    },
    options.placement,
  );
}
