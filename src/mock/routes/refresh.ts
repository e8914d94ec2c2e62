import type { ClientFixture } from '../fixture-format/fixture-format.js';
import type { MockContext } from '../core/context.js';
import type { OAuthParams } from './oauth-params.js';
import type { TokenPair } from '../core/grant-transitions.js';
import type { MockResponse, RequestNote } from '../core/types.js';
import { explain, oauthError } from '../core/responses.js';
import { missing } from './client-auth.js';

/**
 * SERVICE.md 4.3: before the access token expires; rotation; a used refresh token is refused, and
 * the pair that replaced it keeps working (SPEC §5). The quirks refreshRotation,
 * oldRefreshTokenAccepted and refreshAfterExpiry (SPEC §7) bend it, each as its row of the table
 * says and together as the rows compose: refreshRotation false hands the same refresh token back,
 * which is then a used one, so without oldRefreshTokenAccepted it refreshes once, its access token
 * working on (SPEC §7's round trip needs the two apart; `dasvc check` writes both for an
 * installation whose refresh token never changes and keeps working).
 */
export function refresh(
  ctx: MockContext,
  params: OAuthParams,
  client: ClientFixture,
  /** Receives the user of the token's grant. */
  note: RequestNote = {},
): TokenPair | MockResponse {
  const token = params.values.get('refresh_token');
  if (token === undefined) return missing('refresh_token');
  const record = ctx.state.liveToken(token);
  if (!record || record.kind !== 'refresh') {
    const refused = oauthError(
      'invalid_grant',
      'unknown, expired or revoked refresh token (a refresh must come before the access token expires)',
    );
    // The log says which (SPEC §8); an access token sent as the refresh token is said as such.
    // The token's user; the client shown stays the one the request names (SPEC §8).
    if (record?.kind === 'access') {
      const grant = ctx.state.grantOf(record);
      return explain(refused, {
        reason: 'an access token was sent as the refresh token',
        ...(grant ? { user: grant.user } : {}),
      });
    }
    const { reason, user } = ctx.state.refusal(token, 'refresh');
    return explain(refused, { reason, ...(user === undefined ? {} : { user }) });
  }
  const grant = ctx.state.grantOf(record)!;
  note.user = grant.user;
  if (grant.clientId !== client.id) {
    return oauthError('invalid_grant', 'refresh token was issued to another client');
  }
  // Used: rotated away, or (refreshRotation false) handed back unchanged by an earlier refresh.
  const used = record.rotated === true || grant.refreshUsed === true;
  if (used && ctx.quirks.oldRefreshTokenAccepted !== true)
    return oauthError('invalid_grant', 'refresh token already used');
  return ctx.state.rotate(record, ctx.quirks.refreshRotation === false);
}
