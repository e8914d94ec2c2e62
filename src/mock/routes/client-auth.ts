import type { MockContext } from '../core/context.js';
import type { ClientFixture, Fixtures } from '../fixture-format/fixture-format.js';
import type { OAuthParams } from './oauth-params.js';
import type { MockResponse } from '../core/types.js';
import { firstRead, parseBasicAuth } from './oauth-params.js';
import { explain, oauthError } from '../core/responses.js';
import { matchesStored } from '../../util/secrets.js';

/** The parameters of client authentication, read by token, refresh and revoke alike. */
export const CLIENT_READS = ['client_id', 'client_secret'];

/** RFC 9110 §15.5.2: every 401 names a scheme the client can authenticate with. */
const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="dasvc-mock"' };

/** invalid_client is always 401 with the Basic challenge (RFC 6749 §5.2). */
export function invalidClient(description: string): MockResponse {
  return oauthError('invalid_client', description, 401, BASIC_CHALLENGE);
}

/**
 * Client authentication (SERVICE.md §5.1, RFC 6749 §2.3.1): client_id/client_secret parameters or
 * HTTP Basic, never both secrets at once. Returns the client or the error answer.
 */
function authenticateClient(
  fixtures: Fixtures,
  params: OAuthParams,
  authorization: string | undefined,
): ClientFixture | MockResponse {
  const basic = parseBasicAuth(authorization);
  const paramId = params.values.get('client_id');
  const paramSecret = params.values.get('client_secret');
  if (basic === 'malformed') {
    return invalidClient('malformed HTTP Basic credentials');
  }
  if (basic) {
    // RFC 6749 §5.2: more than one way of authenticating the client is a malformed request.
    if (paramSecret !== undefined) {
      return oauthError(
        'invalid_request',
        'client credentials sent both in HTTP Basic and in client_secret; use one method',
      );
    }
    if (paramId !== undefined && paramId !== basic.id) {
      return invalidClient('client_id differs from the HTTP Basic user');
    }
    return check(fixtures, basic.id, basic.secret);
  }
  if (paramId === undefined) return oauthError('invalid_request', 'missing parameter: client_id');
  return check(fixtures, paramId, paramSecret);
}

function check(
  fixtures: Fixtures,
  id: string,
  secret: string | undefined,
): ClientFixture | MockResponse {
  const client = fixtures.clients.get(id);
  if (!client) return invalidClient(`unknown client "${id}"`);
  if (client.secret === undefined) {
    // A public client (fixture line without ":secret") authenticates by its id alone.
    if (secret === undefined || secret === '') return client;
    return invalidClient(`client "${id}" is public and has no secret`);
  }
  // SERVICE.md §5.1: client_secret is a required parameter; one not sent (or empty, as for every
  // parameter) is a missing parameter like any other (SPEC §5: invalid_request naming it). One
  // sent that does not match is a failed authentication.
  if (secret === undefined) return missing('client_secret');
  if (!matchesStored(client, client.secret, secret)) {
    // The client learns no more than RFC 6749 §5.2 says; the mock's log says which check failed.
    return explain(invalidClient('client authentication failed'), {
      reason: `wrong client_secret for ${id}`,
    });
  }
  return client;
}

/** The client a request names (HTTP Basic user, else client_id), authenticated or not (SPEC §8). */
export function claimedClient(
  params: OAuthParams,
  authorization: string | undefined,
): string | undefined {
  const basic = parseBasicAuth(authorization);
  return typeof basic === 'object' ? basic.id : params.values.get('client_id');
}

/** invalid_request naming the missing parameter (SPEC §5). */
export function missing(name: string): MockResponse {
  return oauthError('invalid_request', `missing parameter: ${name}`);
}

/**
 * Common head of token, refresh and revoke: no repeated parameter, no broken percent-encoding
 * among those the endpoint `reads`, then client authentication.
 */
export function authenticate(
  ctx: MockContext,
  params: OAuthParams,
  authorization: string | undefined,
  reads: ReadonlySet<string>,
): ClientFixture | MockResponse {
  const repeated = firstRead(params.repeated, reads);
  if (repeated !== undefined) {
    return oauthError('invalid_request', `parameter ${repeated} is given more than once`);
  }
  const malformed = firstRead(params.malformed, reads);
  if (malformed !== undefined) {
    // Read as U+FFFD it would name an unknown client or a wrong secret: say what is wrong instead.
    return oauthError(
      'invalid_request',
      `parameter ${malformed} is not valid UTF-8 percent-encoding`,
    );
  }
  return authenticateClient(ctx.fixtures, params, authorization);
}
