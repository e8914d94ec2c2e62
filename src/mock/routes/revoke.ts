import type { MockContext } from '../core/context.js';
import type { OAuthParams } from './oauth-params.js';
import type { MockResponse, RequestNote } from '../core/types.js';
import { explain, jsonResponse, NO_STORE, oauthError } from '../core/responses.js';
import { safeEqual } from '../../util/secrets.js';
import { authenticate, claimedClient, CLIENT_READS, missing } from './client-auth.js';

const HINTS = new Set(['access_token', 'refresh_token']);
/** What a revocation reads (RFC 7009 §2.1); any other parameter is ignored. */
const READS = new Set([...CLIENT_READS, 'token', 'token_type_hint']);

/** Revoke endpoint (SERVICE.md 4.4, RFC 7009 §2). */
export function handleRevokeRequest(
  ctx: MockContext,
  params: OAuthParams,
  authorization: string | undefined,
): MockResponse {
  const note: RequestNote = {};
  const client = claimedClient(params, authorization);
  if (client !== undefined) note.client = client;
  return explain(revoke(ctx, params, authorization, note), note);
}

function revoke(
  ctx: MockContext,
  params: OAuthParams,
  authorization: string | undefined,
  note: RequestNote,
): MockResponse {
  const client = authenticate(ctx, params, authorization, READS);
  if ('status' in client) return client;
  const hint = params.values.get('token_type_hint');
  if (hint === undefined) return missing('token_type_hint');
  const token = params.values.get('token');
  if (token === undefined) return missing('token');
  // SPEC §5: invalid_request names the missing or bad parameter.
  if (!HINTS.has(hint)) {
    return oauthError('invalid_request', 'token_type_hint must be access_token or refresh_token');
  }
  // The hint only speeds a lookup (RFC 7009 §2.1); the token is found whatever its kind.
  const record = ctx.state.liveToken(token);
  // The revokeUnknownToken quirk (SPEC §7): an installation that refuses what it does not know.
  if (!record && ctx.quirks.revokeUnknownToken === 'error') {
    return explain(jsonResponse(400, { error: 'invalid_request' }, NO_STORE), {
      code: 'invalid_request',
      reason: 'unknown, expired or revoked token (quirk revokeUnknownToken: "error")',
    });
  }
  if (record && !record.rotated) {
    const grant = ctx.state.grantOf(record)!;
    note.user = grant.user;
    if (!safeEqual(grant.clientId, client.id)) {
      return explain(oauthError('invalid_grant', 'the token was issued to another client'), {
        reason: `the token was issued to ${grant.clientId}, not ${client.id}; it stays valid`,
      });
    }
    ctx.state.revokeToken(token, record);
  }
  // RFC 7009 §2.2: an unknown token is answered the same; the log says which it was.
  return explain(jsonResponse(200, { result: 'Token revoked' }, NO_STORE), {
    reason:
      record && !record.rotated
        ? `revoked the ${record.kind} token`
        : 'unknown, expired or already revoked token: nothing to revoke',
  });
}
