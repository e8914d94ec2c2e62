import { AuthError, failedOnTheWay } from '../errors.js';
import type { HttpRequest, HttpResponse, SendFn } from '../http/types.js';
import type { ParamsPlacement } from '../oauth/endpoints.js';
import type { ClientCredentials } from '../oauth/token-request.js';
import type { TokenSet } from '../oauth/token-response.js';
import { isExpired, isRefreshDue, secondsLeft } from '../store/expiry.js';
import type { StoredTokens } from '../store/profile-store.js';
import { normalizeTokens, type SaveTokens, type TokenStore } from '../store/token-store.js';

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

/** An AuthError about a profile's session; the CLI turns `detail.profile` into its login hint. */
export function sessionError(profile: string, message: string, code: string, cause?: unknown) {
  return new AuthError(message, { code, detail: { profile }, cause });
}

/** Not logged in: the profile holds no tokens (SPEC §4, exit 3). */
export function notLoggedIn(profile: string): AuthError {
  return sessionError(profile, `not logged in (profile ${profile})`, 'not_logged_in');
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
    const why =
      seenAccess === null
        ? ' and its access token was revoked'
        : options.rejected
          ? ' and its access token was refused'
          : options.force
            ? ''
            : ' and its access token has expired';
    throw sessionError(
      deps.profile,
      `profile ${deps.profile} holds no refresh token${why}`,
      seenAccess === null ? 'revoked' : 'not_refreshable',
    );
  }
  // Everything the refresh needs is loaded before the request leaves (issue 14.3).
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
    // Told after the write: nothing (a slow terminal) may come between the answer and the write.
    const notices: string[] = [];
    const refreshToken = tokens.refreshToken;
    try {
      next = await exchangeAndSave(deps.send, request, save, (response) =>
        processTokenResponse(response, deps.now(), 'refresh request', refreshToken, (message) =>
          notices.push(message),
        ),
      );
    } catch (error) {
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
        // status: not refreshable), and an access token the API refused goes too (revoked).
        if (settings.ownSession)
          await save({
            ...tokens,
            refreshToken: null,
            ...(options.rejected !== undefined && options.rejected === access
              ? { accessToken: null }
              : {}),
          });
        throw new AuthError(
          `the session of profile ${deps.profile} can no longer be refreshed (${error.message})`,
          {
            code: 'invalid_grant',
            status: error.status,
            detail: { profile: deps.profile },
            cause: error,
          },
        );
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
    return { tokens: next, refreshed: true };
  });
}

/**
 * Sends a refresh (SERVICE.md §4.3) and saves the rotated pair the moment the answer is whole: in
 * the transport's own callback when it offers one (`onAnswer`), else as soon as the answer
 * resolves. The service forgot the old pair when it answered, so nothing may come first (issue
 * 14.3). `read` checks the answer and throws what it refuses.
 */
async function exchangeAndSave(
  send: SendFn,
  request: HttpRequest,
  save: SaveTokens,
  read: (response: HttpResponse) => TokenSet,
): Promise<TokenSet> {
  // An object, not two variables: they are set in a callback the compiler cannot follow.
  const outcome: { saved?: { next: TokenSet; saving: Promise<void> }; refused?: unknown } = {};
  const onAnswer = (response: HttpResponse): void => {
    if (outcome.saved || 'refused' in outcome) return;
    try {
      const next = read(response);
      const saving = Promise.resolve(save(next));
      // Awaited below; until then its failure is not an unhandled rejection.
      saving.catch(() => undefined);
      outcome.saved = { next, saving };
    } catch (error) {
      outcome.refused = error;
    }
  };
  try {
    onAnswer(await send({ ...request, onAnswer }));
  } catch (error) {
    // The connection failed after the whole answer was in: the answer stands.
    if (!outcome.saved && !('refused' in outcome)) throw error;
  }
  if ('refused' in outcome) throw outcome.refused;
  await outcome.saved!.saving;
  return outcome.saved!.next;
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
): Promise<void> {
  await tokens.update(profile, async (stored, save) => {
    if (!stored) return;
    if (which === 'all' || stored.refreshToken === null) await save(undefined);
    else await save({ ...stored, accessToken: null });
  });
}
