import { UsageError } from '../errors.js';
import type { TokenTypeHint } from '../oauth/token-request.js';
import type { ProfileSession } from './profile-session.js';
import { forgetRevokedPair, revokeToken, type RevokeAnswer } from './revoke.js';
import { sessionError } from './session-errors.js';
import { forgetTokens, usableAccessToken } from './session.js';
import { checkSetting, SETTINGS } from './settings.js';

/** What `revoke` did: the service's confirmed answer per token type. */
export interface RevokeOutcome {
  revoked: Partial<Record<TokenTypeHint, RevokeAnswer>>;
  /** Token types asked for that the profile did not hold. */
  skipped: TokenTypeHint[];
}

/** What `client.revoke()` takes: a token (else the stored one), its type, or both stored ones. */
export interface RevokeOptions {
  token?: string;
  hint?: TokenTypeHint;
  all?: boolean;
}

/**
 * Revokes a token at the service (SERVICE.md §4.4, SPEC §3 `token revoke`): `token` (no store
 * needed), else the stored access token (or `hint: 'refresh_token'`), or both with `all`, which
 * are then forgotten. `onRevoked` hears each confirmed answer as it comes (null: the profile
 * held no token of that type, skipped).
 */
export async function revokeTokens(
  session: ProfileSession,
  options: RevokeOptions,
  onRevoked?: (kind: TokenTypeHint, answer: RevokeAnswer | null) => void,
): Promise<RevokeOutcome> {
  const { given, deps } = session;
  const hint = options.hint;
  if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token')
    throw new UsageError(
      `--hint must be access_token or refresh_token, got ${JSON.stringify(hint)}`,
      { code: 'bad_hint' },
    );
  // A token handed over is checked as the `token` option is (text a header can carry), and
  // never shown: not even its value when it is no text.
  const own: unknown = options.token;
  const explicit =
    own === undefined ? given.explicit('token')?.value : checkSetting(SETTINGS.token, own);
  if (explicit !== undefined) {
    if (options.all)
      throw new UsageError(
        '--all revokes the stored tokens; it cannot be combined with --token/DASVC_TOKEN',
        { code: 'bad_flags' },
      );
    // The store is consulted only for what options and env leave open: CI needs no config.
    const needStore =
      !given.explicit('clientId') ||
      !given.explicit('clientSecret') ||
      (!given.explicit('baseUrl') && !given.explicit('revokeUrl'));
    const kind = hint ?? 'access_token';
    if (needStore) await session.withSecrets();
    const settings = await session
      .settings(needStore)
      .prompted({ endpoint: 'revoke', client: true }, deps.prompter);
    const answer = await revokeToken(deps.send, settings, explicit, kind);
    onRevoked?.(kind, answer);
    return { revoked: { [kind]: answer }, skipped: [] };
  }
  const { name } = session.load();
  const tokens = await session.storedTokens();
  // The access token first: revoking the refresh token often ends it too, and an installation
  // that refuses unknown tokens (the revokeUnknownToken quirk, SPEC §7) would then refuse it.
  const which: TokenTypeHint[] = options.all
    ? ['access_token', 'refresh_token']
    : [hint ?? 'access_token'];
  const stored = (kind: TokenTypeHint) =>
    kind === 'refresh_token' ? tokens.refreshToken : usableAccessToken(tokens);
  if (which.every((kind) => !stored(kind))) {
    const already = tokens.accessToken === null && which.includes('access_token');
    throw sessionError(
      name,
      `profile ${name} holds no ${which.join(' or ')} to revoke${already ? ' (its access token was revoked already)' : ''}`,
      'no_stored_token',
    );
  }
  await session.withSecrets();
  const settings = session.settings();
  const outcome: RevokeOutcome = { revoked: {}, skipped: [] };
  try {
    for (const kind of which) {
      const token = stored(kind);
      if (!token) {
        outcome.skipped.push(kind);
        onRevoked?.(kind, null);
        continue;
      }
      const answer = await revokeToken(deps.send, settings, token, kind);
      outcome.revoked[kind] = answer;
      onRevoked?.(kind, answer);
    }
  } finally {
    // What the service confirmed is forgotten even when a later call failed; a revoked refresh
    // token ends its access token too (RFC 7009 §2.1).
    if (outcome.revoked.refresh_token)
      await forgetRevokedPair(deps, settings, name, tokens.refreshToken, false);
    else if (outcome.revoked.access_token)
      await forgetTokens(deps.tokens, name, 'access', deps.now());
  }
  return outcome;
}
