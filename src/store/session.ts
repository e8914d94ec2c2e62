import { AuthError } from '../errors.js';
import type { SendFn } from '../http/types.js';
import type { ParamsPlacement } from '../oauth/endpoints.js';
import type { ClientCredentials } from '../oauth/token-request.js';
import type { TokenSet } from '../oauth/token-response.js';
import { isExpired, isRefreshDue } from './expiry.js';
import { DEFAULT_PROFILE, type ProfileStore, type StoredTokens } from './profile-store.js';

/** What a refresh needs besides the stored tokens (resolved flag > env > profile). */
export interface RefreshSettings {
  client: ClientCredentials;
  refreshUrl: string;
  placement: ParamsPlacement;
}

export interface SessionDeps {
  store: ProfileStore;
  profile: string;
  send: SendFn;
  now: () => number;
  /** Resolved lazily: only a refresh needs the client secret. */
  refreshSettings: () => RefreshSettings;
}

export interface TokenOptions {
  /** Refresh even when not due (`dasvc token refresh`). */
  force?: boolean;
  /** The access token the API just refused: refresh unless the store already holds another one. */
  rejected?: string;
}

/** What happened, for messages: whether this process refreshed. */
export interface SessionTokens {
  tokens: TokenSet;
  refreshed: boolean;
}

/** The command that logs a profile in, for hints. */
export function loginHint(profile: string): string {
  return profile === DEFAULT_PROFILE ? 'dasvc login' : `dasvc login --profile ${profile}`;
}

/** Not logged in: the profile holds no tokens (SPEC §4, exit 3). */
export function notLoggedIn(profile: string): AuthError {
  return new AuthError(`not logged in (profile ${profile})`, {
    code: 'not_logged_in',
    hint: loginHint(profile),
  });
}

function storedTokens(deps: SessionDeps): StoredTokens | undefined {
  return deps.store.read().profiles?.[deps.profile]?.tokens;
}

/** The stored access token, or null when it was revoked (older files wrote an empty string). */
export function usableAccessToken(tokens: StoredTokens): string | null {
  return tokens.accessToken === null || tokens.accessToken === '' || tokens.accessRevoked
    ? null
    : tokens.accessToken;
}

function asTokenSet(tokens: StoredTokens, accessToken: string): TokenSet {
  return {
    accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt,
    obtainedAt: tokens.obtainedAt,
  };
}

/**
 * The access token to use now (SPEC §3): the stored one, or a refreshed one when it is within the
 * refresh margin, when forced, or after the API refused it. Across processes at most one refreshes:
 * the refresh happens under the store's lock file, after re-reading the store, and a process that
 * finds the tokens already rotated by another simply uses them. On `invalid_grant` the store is read
 * once more before giving up, since another process (without the lock) may have rotated them.
 */
export async function currentTokens(
  deps: SessionDeps,
  options: TokenOptions = {},
): Promise<SessionTokens> {
  const data = deps.store.read();
  const profile = data.profiles?.[deps.profile];
  const seen = profile?.tokens;
  if (!seen) throw notLoggedIn(deps.profile);
  const seenAccess = usableAccessToken(seen);
  const wanted =
    options.force ||
    options.rejected !== undefined ||
    seenAccess === null ||
    isRefreshDue(seen, deps.now(), profile?.refreshMargin);
  if (!wanted && seenAccess !== null)
    return { tokens: asTokenSet(seen, seenAccess), refreshed: false };
  if (seen.refreshToken === null) {
    if (
      seenAccess !== null &&
      options.rejected === undefined &&
      !options.force &&
      !isExpired(seen, deps.now())
    )
      return { tokens: asTokenSet(seen, seenAccess), refreshed: false };
    const why =
      seenAccess === null
        ? ' and its access token was revoked'
        : options.rejected
          ? ' and its access token was refused'
          : options.force
            ? ''
            : ' and its access token has expired';
    throw new AuthError(`profile ${deps.profile} holds no refresh token${why}`, {
      code: seenAccess === null ? 'revoked' : 'not_refreshable',
      hint: loginHint(deps.profile),
    });
  }
  return deps.store.locked(async () => {
    const fresh = deps.store.read();
    const current = fresh.profiles?.[deps.profile];
    const tokens = current?.tokens;
    if (!current || !tokens) throw notLoggedIn(deps.profile);
    const access = usableAccessToken(tokens);
    const rotatedMeanwhile =
      access !== null && access !== seenAccess && access !== options.rejected;
    if (rotatedMeanwhile && !isExpired(tokens, deps.now()))
      return { tokens: asTokenSet(tokens, access), refreshed: false };
    if (tokens.refreshToken === null) throw notLoggedIn(deps.profile);
    const settings = deps.refreshSettings();
    // Loaded when a refresh happens, not on every use of a stored token.
    const [{ buildRefreshRequest }, { processTokenResponse }] = await Promise.all([
      import('../oauth/token-request.js'),
      import('../oauth/token-response.js'),
    ]);
    const request = buildRefreshRequest({
      url: settings.refreshUrl,
      client: settings.client,
      refreshToken: tokens.refreshToken,
      placement: settings.placement,
    });
    let next: TokenSet;
    try {
      next = processTokenResponse(
        await deps.send(request),
        deps.now(),
        'refresh request',
        tokens.refreshToken,
      );
    } catch (error) {
      if (error instanceof AuthError && error.code === 'invalid_grant') {
        const again = storedTokens(deps);
        const againAccess = again ? usableAccessToken(again) : null;
        if (
          again &&
          againAccess !== null &&
          again.refreshToken !== tokens.refreshToken &&
          !isExpired(again, deps.now())
        ) {
          return { tokens: asTokenSet(again, againAccess), refreshed: false };
        }
        throw new AuthError(
          `the session of profile ${deps.profile} can no longer be refreshed (${error.message})`,
          {
            code: 'invalid_grant',
            status: error.status,
            hint: loginHint(deps.profile),
            cause: error,
          },
        );
      }
      throw error;
    }
    const profiles = (fresh.profiles ??= {});
    profiles[deps.profile] = { ...current, tokens: next };
    await deps.store.writeUnlocked(fresh);
    return { tokens: next, refreshed: true };
  });
}

/**
 * Forgets the stored tokens of a profile, keeping its settings (logout, revoke --all). With
 * `access`, only the access token goes: it is recorded as revoked, its expiry kept, so that status
 * can say so and a refresh stays possible while the refresh token lives (SERVICE.md §4.3).
 */
export async function forgetTokens(
  store: ProfileStore,
  profile: string,
  which: 'all' | 'access' = 'all',
): Promise<void> {
  await store.update((data) => {
    const entry = data.profiles?.[profile];
    if (!entry?.tokens) return;
    if (which === 'all' || entry.tokens.refreshToken === null) delete entry.tokens;
    else entry.tokens = { ...entry.tokens, accessToken: null, accessRevoked: true };
  });
}
