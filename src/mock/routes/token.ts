import type { ClientFixture } from '../fixture-format/fixture-format.js';
import type { MockContext } from '../core/context.js';
import type { OAuthParams } from './oauth-params.js';
import type { TokenPair } from '../core/grant-transitions.js';
import type { MockResponse, RequestNote } from '../core/types.js';
import { authenticate, claimedClient, CLIENT_READS, missing } from './client-auth.js';
import { parseBasicAuth } from './oauth-params.js';
import { explain, jsonResponse, NO_STORE, oauthError } from '../core/responses.js';
import { refresh } from './refresh.js';
import { pkceMatches } from '../core/secrets.js';
import { quirkExpiresIn } from '../core/quirks.js';
import type { Quirks } from '../../schemas/quirks.js';

/** What a code exchange reads (RFC 6749 §4.1.3, RFC 7636 §4.5); any other is ignored. */
const CODE_READS = new Set([
  ...CLIENT_READS,
  'grant_type',
  'code',
  'redirect_uri',
  'code_verifier',
]);
/** What a refresh reads (RFC 6749 §6); any other is ignored. */
const REFRESH_READS = new Set([...CLIENT_READS, 'grant_type', 'refresh_token']);

/**
 * SERVICE.md 2.3 with `Cache-Control: no-store` (RFC 6749 §5.1), `expires_in` as the expiresIn
 * quirk has it (SPEC §7); with `tokenType`, also `token_type` (RFC 6749 §5.1).
 */
export function tokenResponse(pair: TokenPair, quirks: Quirks, tokenType = false): MockResponse {
  const body: Record<string, string | number> = { access_token: pair.access_token };
  if (tokenType) body.token_type = 'Bearer';
  if (quirks.expiresIn === undefined) body.expires_in = pair.expires_in;
  else Object.assign(body, quirkExpiresIn(pair.expires_in, quirks));
  body.refresh_token = pair.refresh_token;
  return jsonResponse(200, body, NO_STORE);
}

/**
 * A request made the RFC 6749 way (form body, or HTTP Basic client authentication) also gets
 * `token_type` (RFC 6749 §5.1), which standard OAuth libraries require; a request made the
 * SERVICE.md way (query string only) gets exactly the three members of SERVICE.md 2.3.
 */
function issued(
  pair: TokenPair,
  params: OAuthParams,
  authorization: string | undefined,
  quirks: Quirks,
) {
  const rfc6749 = params.fromBody || typeof parseBasicAuth(authorization) === 'object';
  return tokenResponse(pair, quirks, rfc6749);
}

/**
 * Token endpoint (SERVICE.md 4.2) and refresh endpoint (4.3). The token endpoint also takes
 * grant_type=refresh_token, where standard OAuth libraries send refreshes (RFC 6749 §6).
 */
export function handleTokenRequest(
  ctx: MockContext,
  params: OAuthParams,
  authorization: string | undefined,
  endpoint: 'token' | 'refresh',
): MockResponse {
  const note: RequestNote = {};
  const client = claimedClient(params, authorization);
  if (client !== undefined) note.client = client;
  return explain(tokenRequest(ctx, params, authorization, endpoint, note), note);
}

function tokenRequest(
  ctx: MockContext,
  params: OAuthParams,
  authorization: string | undefined,
  endpoint: 'token' | 'refresh',
  /** Receives the user once a code or token names one. */
  note: RequestNote,
): MockResponse {
  const grantType = params.values.get('grant_type');
  const reads = grantType === 'refresh_token' ? REFRESH_READS : CODE_READS;
  const client = authenticate(ctx, params, authorization, reads);
  if ('status' in client) return client;
  if (grantType === undefined) return missing('grant_type');
  if (grantType === 'refresh_token') {
    const pair = refresh(ctx, params, client, note);
    return 'status' in pair ? pair : issued(pair, params, authorization, ctx.quirks);
  }
  if (grantType === 'authorization_code' && endpoint === 'token') {
    const pair = exchangeCode(ctx, params, client, note);
    return 'status' in pair ? pair : issued(pair, params, authorization, ctx.quirks);
  }
  const allowed = endpoint === 'token' ? 'authorization_code or refresh_token' : 'refresh_token';
  return oauthError('unsupported_grant_type', `grant_type must be ${allowed}, got "${grantType}"`);
}

/** RFC 7636 §4.1–4.2: a verifier is 43–128 unreserved characters, an S256 challenge 43 base64url. */
const VERIFIER_FORM = /^[A-Za-z0-9._~-]{43,128}$/;
const S256_FORM = /^[A-Za-z0-9_-]{43}$/;

/** Why a verifier could not match, when the client broke RFC 7636's forms (the usual PKCE bugs). */
function pkceFormHint(method: 'S256' | 'plain', challenge: string, verifier: string): string {
  if (method === 'S256' && !S256_FORM.test(challenge)) {
    return ' (the S256 code_challenge is not 43 base64url characters: padded, or base64 with + and /?)';
  }
  if (!VERIFIER_FORM.test(verifier)) {
    return ' (the code_verifier is not 43-128 characters of [A-Za-z0-9._~-], as PKCE requires)';
  }
  return '';
}

/** RFC 6749 §4.1.3 + RFC 7636 §4.6: a single-use code bound to client, redirect URI and PKCE. */
function exchangeCode(
  ctx: MockContext,
  params: OAuthParams,
  client: ClientFixture,
  note: RequestNote,
): TokenPair | MockResponse {
  const code = params.values.get('code');
  if (code === undefined) return missing('code');
  const record = ctx.state.findCode(code);
  if (!record) return oauthError('invalid_grant', 'unknown or expired authorization code');
  note.user = record.user;
  // A second use is a second use whoever presents it (SPEC §5, RFC 6749 §4.1.2): a used code in
  // another client's hands is a leaked one, and the tokens issued for it end all the same.
  if (record.grantId !== undefined) {
    ctx.state.replayCode(record);
    return oauthError('invalid_grant', 'code already used; its tokens were revoked');
  }
  if (record.clientId !== client.id) {
    return oauthError('invalid_grant', 'authorization code was issued to another client');
  }
  const redirectUri = params.values.get('redirect_uri');
  if (redirectUri !== undefined && redirectUri !== record.redirectUri) {
    return oauthError('invalid_grant', 'redirect_uri does not match the authorization request');
  }
  if (record.challenge !== undefined) {
    const verifier = params.values.get('code_verifier');
    if (verifier === undefined) {
      return oauthError(
        'invalid_grant',
        'code_verifier required: the authorization request sent a code_challenge',
      );
    }
    const method = record.challengeMethod ?? 'plain';
    if (!pkceMatches(method, record.challenge, verifier)) {
      return oauthError(
        'invalid_grant',
        `code_verifier does not match the code_challenge${pkceFormHint(method, record.challenge, verifier)}`,
      );
    }
  }
  return ctx.state.redeemCode(record, code);
}
