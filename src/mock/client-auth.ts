import type { ClientFixture, Fixtures } from './fixtures.js';
import type { OAuthParams } from './oauth-params.js';
import type { MockResponse } from './types.js';
import { parseBasicAuth } from './oauth-params.js';
import { oauthError } from './responses.js';
import { safeEqual } from './secrets.js';

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="dasvc-mock", charset="UTF-8"' };

/**
 * Client authentication (SERVICE.md §5.1, RFC 6749 §2.3.1): client_id/client_secret parameters or
 * HTTP Basic, never both secrets at once. Returns the client or the error answer.
 */
export function authenticateClient(
  fixtures: Fixtures,
  params: OAuthParams,
  authorization: string | undefined,
): ClientFixture | MockResponse {
  const basic = parseBasicAuth(authorization);
  const paramId = params.values.get('client_id');
  const paramSecret = params.values.get('client_secret');
  if (basic === 'malformed') {
    return oauthError('invalid_client', 'malformed HTTP Basic credentials', 401, BASIC_CHALLENGE);
  }
  if (basic) {
    if (paramSecret !== undefined) {
      return oauthError(
        'invalid_client',
        'client credentials sent both in HTTP Basic and in client_secret; use one method',
        401,
        BASIC_CHALLENGE,
      );
    }
    if (paramId !== undefined && paramId !== basic.id) {
      return oauthError(
        'invalid_client',
        'client_id differs from the HTTP Basic user',
        401,
        BASIC_CHALLENGE,
      );
    }
    return check(fixtures, basic.id, basic.secret, BASIC_CHALLENGE);
  }
  if (paramId === undefined) return oauthError('invalid_request', 'missing parameter: client_id');
  return check(fixtures, paramId, paramSecret, undefined);
}

function check(
  fixtures: Fixtures,
  id: string,
  secret: string | undefined,
  challenge: Record<string, string> | undefined,
): ClientFixture | MockResponse {
  const client = fixtures.clients.get(id);
  if (!client) return oauthError('invalid_client', `unknown client "${id}"`, 401, challenge);
  if (client.secret === undefined) {
    // A public client (fixture line without ":secret") authenticates by its id alone.
    if (secret === undefined || secret === '') return client;
    return oauthError(
      'invalid_client',
      `client "${id}" is public and has no secret`,
      401,
      challenge,
    );
  }
  if (secret === undefined || secret === '') {
    return oauthError('invalid_client', 'missing parameter: client_secret', 401, challenge);
  }
  if (!safeEqual(secret, client.secret)) {
    return oauthError('invalid_client', 'client authentication failed', 401, challenge);
  }
  return client;
}
