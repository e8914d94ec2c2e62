import { AuthError, failedOnTheWay, InterruptedError } from '../errors.js';
import type { SendFn } from '../http/types.js';
import type { ParamsPlacement } from '../oauth/endpoints.js';
import type { ClientCredentials } from '../oauth/token-request.js';
import { clientRefused } from './client-refused.js';
import { exchangeAndSave } from './refresh-exchange.js';
import { noRefreshLeft, notLoggedIn, refreshRefusal, sessionError } from './session-errors.js';
import type { SettingSource } from './resolve-settings.js';
import type { TokenSet } from '../oauth/token-response.js';
import { isExpired, isRefreshDue, secondsLeft } from '../store/expiry.js';
import type { StoredTokens } from '../schemas/config-file.js';
import { normalizeTokens, rememberEnded, type TokenStore } from '../store/token-store.js';

/** What a refresh needs besides the stored tokens (resolved option > env > profile). */
export interface RefreshSettings {
  client: ClientCredentials;
  refreshUrl: string;
  placement: ParamsPlacement;
  /**
   * Whether the refresh goes where the stored tokens came from: the profile's own refresh URL and
   * client (or no stored profile to differ from). Only then is an `invalid_grant` the session's
   * end; under another client or service (a flag or variable that overrides them) it says
   * nothing about the stored pair, which is kept.
   */
  ownSession: boolean;
  /** Where the client secret came from, for the hint when the service does not accept it. */
  secretFrom?: SettingSource | undefined;
}

export interface SessionDeps {
  tokens: TokenStore;
  profile: string;
  send: SendFn;
  now: () => number;
  /** The profile's own refresh margin in seconds, if it has one. */
  refreshMargin?: number | undefined;
  /** Resolved lazily: only a refresh needs the client secret (which may be in the OS store). */
  refreshSettings: () => RefreshSettings | Promise<RefreshSettings>;
  /** What a person should hear (an `expires_in` read as unknown); nothing when absent. */
  tell?: ((message: string, level?: 'warning') => void) | undefined;
}

export interface TokenOptions {
  /** Refresh even when not due (`dasvc token refresh`, `client.refresh()`). */
  force?: boolean;
  /** The access token the API just refused: refresh unless the store already holds another one. */
  rejected?: string;
}

/** What happened, for messages: whether this process refreshed. */
export interface SessionTokens {
  tokens: TokenSet;
  refreshed: boolean;
}

/**
 * The stored access token, or null when it was revoked, in any of the encodings a TokenStore may
 * hand back (the interface is public: an embedder's store need not normalise as the file does).
 */
export function usableAccessToken(tokens: StoredTokens): string | null {
  return normalizeTokens(tokens)!.accessToken;
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
 * refresh margin, when forced, or after the API refused it. The only place where a refresh
 * happens. Across processes at most one refreshes: under the store's lock, after re-reading the
 * tokens, a process that finds them already rotated by another simply uses them. On
 * `invalid_grant` the store is read once more before giving up, since another process (without
 * the lock) may have rotated them.
 */
export async function currentTokens(
  deps: SessionDeps,
  options: TokenOptions = {},
): Promise<SessionTokens> {
  const seen = await deps.tokens.load(deps.profile);
  if (!seen) throw notLoggedIn(deps.profile);
  const seenAccess = usableAccessToken(seen);
  const wanted =
    options.force ||
    options.rejected !== undefined ||
    seenAccess === null ||
    isRefreshDue(seen, deps.now(), deps.refreshMargin);
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
    if (options.rejected !== undefined) await recordRefusedAccess(deps, options.rejected);
    const { message, code } = noRefreshLeft(
      deps.profile,
      seen,
      options.rejected !== undefined,
      deps.now(),
    );
    throw sessionError(deps.profile, message, code);
  }
  // Everything the refresh needs is loaded before the request leaves.
  const [{ buildRefreshRequest }, { processTokenResponse }] = await Promise.all([
    import('../oauth/token-request.js'),
    import('../oauth/token-response.js'),
  ]);
  return deps.tokens.update(deps.profile, async (tokens, save) => {
    if (!tokens) throw notLoggedIn(deps.profile);
    const access = usableAccessToken(tokens);
    // After a 401 the question is whether the store still holds the refused token: another
    // process may have rotated it before `seen` was read, and then `seen` already is the new pair.
    const rotatedMeanwhile =
      access !== null &&
      (options.rejected !== undefined ? access !== options.rejected : access !== seenAccess);
    if (rotatedMeanwhile && !isExpired(tokens, deps.now()))
      return { tokens: asTokenSet(tokens, access), refreshed: false };
    if (tokens.refreshToken === null) throw notLoggedIn(deps.profile);
    const settings = await deps.refreshSettings();
    const request = buildRefreshRequest({
      url: settings.refreshUrl,
      client: settings.client,
      refreshToken: tokens.refreshToken,
      placement: settings.placement,
    });
    let next: TokenSet;
    let unsaved: unknown;
    // Told after the write: nothing (a slow terminal) may come between the answer and the write.
    const notices: string[] = [];
    const refreshToken = tokens.refreshToken;
    // What the new pair is stored with, made before the request leaves: the access token it
    // replaces is remembered by fingerprint (a refused `--token` is then told as replaced).
    const endedAccess = rememberEnded(tokens, 'replaced', deps.now());
    const stored = (pair: TokenSet): StoredTokens =>
      endedAccess === undefined ? pair : { ...pair, endedAccess };
    try {
      ({ next, unsaved } = await exchangeAndSave(
        deps.send,
        request,
        (pair) => save(stored(pair)),
        (response) =>
          processTokenResponse(response, deps.now(), 'refresh request', refreshToken, (message) =>
            notices.push(message),
          ),
      ));
    } catch (error) {
      if (error instanceof AuthError && error.code === 'invalid_client')
        throw clientRefused(error, {
          profile: deps.profile,
          clientId: settings.client.clientId,
          secretFrom: settings.secretFrom,
        });
      if (error instanceof AuthError && error.code === 'invalid_grant') {
        const again = await deps.tokens.load(deps.profile);
        const againAccess = again ? usableAccessToken(again) : null;
        if (
          again &&
          againAccess !== null &&
          again.refreshToken !== tokens.refreshToken &&
          !isExpired(again, deps.now())
        ) {
          return { tokens: asTokenSet(again, againAccess), refreshed: false };
        }
        // The refusal is final for this refresh token: the profile says so from now on (token
        // status: not refreshable, refused), and an access token the API refused goes too.
        if (settings.ownSession)
          await save({
            ...tokens,
            refreshToken: null,
            refreshRefused: true,
            ...(options.rejected !== undefined && options.rejected === access
              ? { accessToken: null, accessEnded: 'refused' as const }
              : {}),
          });
        const rejected = options.rejected !== undefined;
        throw new AuthError(refreshRefusal(deps.profile, tokens, rejected, error, deps.now()), {
          code: 'invalid_grant',
          status: error.status,
          facts: { profile: deps.profile },
          cause: error,
        });
      }
      // Due only by the margin, and no answer came (or a 5xx): the access token still works until
      // it expires, so the call goes on with it. Not after a malformed answer, which may have
      // rotated the pair already; not for a forced refresh or one after a 401, which have no
      // token to fall back on.
      const fallback = options.force || options.rejected !== undefined ? null : access;
      if (failedOnTheWay(error) && fallback !== null && !isExpired(tokens, deps.now())) {
        const left = secondsLeft(tokens, deps.now());
        deps.tell?.(
          `could not refresh the access token of profile ${deps.profile} (${(error as Error).message}); using it as it is${left === null ? '' : ` (${Math.floor(left)} s left)`}`,
          'warning',
        );
        return { tokens: asTokenSet(tokens, fallback), refreshed: false };
      }
      throw error;
    }
    for (const message of notices) deps.tell?.(message);
    if (unsaved !== undefined) {
      // The service has spent the old pair: the new one lives in this process alone. A refresh
      // asked for itself (token refresh) fails as its store did; a call goes on with the pair.
      if (options.force || unsaved instanceof InterruptedError) throw unsaved;
      deps.tell?.(
        `the new tokens of profile ${deps.profile} could not be stored (${(unsaved as Error).message}); this command uses them, the next one needs dasvc login`,
        'warning',
      );
    }
    return { tokens: next, refreshed: true };
  });
}

/**
 * The API refused `access` and no refresh can replace it: the profile says so from now on (token
 * status: not usable; token print: exit 3), as after a refused refresh. Nothing changes when the
 * store holds another access token, or a refresh token, by now.
 */
export async function recordRefusedAccess(deps: SessionDeps, access: string): Promise<void> {
  // For the next commands: the caller reports the refusal whether or not the store takes it.
  await deps.tokens
    .update(deps.profile, async (tokens, save) => {
      if (tokens?.refreshToken === null && usableAccessToken(tokens) === access)
        await save({ ...tokens, accessToken: null, accessEnded: 'refused' });
    })
    .catch((failure: unknown) => {
      if (failure instanceof InterruptedError) throw failure;
    });
}

/**
 * Forgets the stored tokens of a profile (logout, revoke --all). With `access`, only the access
 * token goes: stored as null (the one revoked encoding), its expiry kept, so that status can say so
 * and a refresh stays possible while the refresh token lives (SERVICE.md §4.3).
 */
export async function forgetTokens(
  tokens: TokenStore,
  profile: string,
  which: 'all' | 'access' = 'all',
  now: number = Date.now(),
): Promise<void> {
  await tokens.update(profile, async (stored, save) => {
    if (!stored) return;
    if (which === 'all' || stored.refreshToken === null) {
      await save(undefined);
      return;
    }
    const endedAccess = rememberEnded(stored, 'revoked', now);
    await save({
      ...stored,
      accessToken: null,
      accessEnded: 'revoked',
      ...(endedAccess === undefined ? {} : { endedAccess }),
    });
  });
}
