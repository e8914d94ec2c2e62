import { DasvcError, NetworkError, sameKind } from '../errors.js';
import type { TokenTypeHint } from '../oauth/token-request.js';
import type { ProfileSession } from './profile-session.js';
import type { ResolvedSettings } from './resolve-settings.js';
import { forgetRevokedPair, revokeToken } from './revoke.js';
import { forgetTokens, usableAccessToken } from './session.js';

/** What `logout` did (best effort: the tokens are forgotten even when revoking failed). */
export interface LogoutOutcome {
  profile: string;
  loggedIn: boolean;
  revoked: Partial<Record<TokenTypeHint, boolean>>;
  /** Why a token could not be revoked (or why nothing could be sent). */
  failures: { kind: TokenTypeHint | 'all'; error: DasvcError }[];
  forgotten: boolean;
}

/**
 * Logs out (SPEC §3 `logout`): revokes the access token, then the refresh token, then forgets
 * both and the client secret (SPEC §9). When the service could not be reached or refused, the
 * logout stops there, the tokens are kept (they may still be valid there) and the call fails
 * with the first failure's kind (SPEC §1: failures are DasvcErrors), unless `forget`: then they
 * are forgotten anyway and the failures are reported in the outcome. Idempotent: logging out
 * twice is not an error.
 */
export async function logout(
  session: ProfileSession,
  options: { forget?: boolean },
): Promise<LogoutOutcome> {
  const { deps } = session;
  const { name } = session.load();
  const tokens = await deps.tokens.load(name);
  const outcome: LogoutOutcome = {
    profile: name,
    loggedIn: Boolean(tokens),
    revoked: {},
    failures: [],
    forgotten: false,
  };
  if (!tokens) {
    if (!deps.profiles) return outcome;
    // A profile named that is none of those stored (a typo) is said, not logged out of.
    const unknown = session.unknownProfile();
    if (unknown) throw unknown;
    // No tokens (a `revoke --all`, an ended session forgotten), yet the client secret may be kept:
    // it goes all the same (SPEC §9).
    const { profile } = await session.withSecrets();
    if (profile?.clientSecret !== undefined) {
      await forgetClientSecret(deps, name);
      outcome.forgotten = true;
    }
    return outcome;
  }
  // Settings of another installation are the user's to fix, not a failure to revoke, unless
  // `forget` asks to forget the tokens here anyway (sending nothing); so are settings that cannot
  // be read at all (a stored URL that no longer passes the checks: one with a user name).
  let elsewhere: DasvcError | undefined;
  try {
    elsewhere = session.settings().otherInstallation('tokens');
  } catch (error) {
    if (!(error instanceof DasvcError) || !options.forget) throw error;
    elsewhere = error;
  }
  if (elsewhere && !options.forget) throw elsewhere;
  let settings: ResolvedSettings | undefined;
  await session.withSecrets();
  try {
    if (elsewhere) throw elsewhere;
    settings = session.settings();
    settings.endpoint('revoke');
    settings.client();
  } catch (error) {
    if (!(error instanceof DasvcError)) throw error;
    outcome.failures.push({ kind: 'all', error });
    settings = undefined;
  }
  // The access token first, as in revoke({ all }).
  const pairs: [TokenTypeHint, string | null][] = [
    ['access_token', usableAccessToken(tokens)],
    ['refresh_token', tokens.refreshToken],
  ];
  for (const [kind, token] of pairs) {
    if (!token || !settings) continue;
    try {
      await revokeToken(deps.send, settings, token, kind);
      outcome.revoked[kind] = true;
    } catch (error) {
      if (!(error instanceof DasvcError)) throw error;
      outcome.revoked[kind] = false;
      outcome.failures.push({ kind, error });
      // Stop here: revoking the refresh token would also end the access token kept as "may
      // still be valid" (SPEC §5), leaving the profile a pair that is dead at the service.
      if (!options.forget) break;
    }
  }
  // SPEC §3: when the service could not be reached or refused, the tokens are kept (they may
  // still be valid there) unless `forget`; what it confirmed revoked is forgotten either way.
  if (outcome.failures.length === 0 || options.forget) {
    const forget = options.forget === true;
    const missed = await forgetRevokedPair(deps, settings, name, tokens.refreshToken, forget);
    if (missed) outcome.failures.push({ kind: 'all', error: missed });
    await forgetClientSecret(deps, name);
    outcome.forgotten = true;
    return outcome;
  }
  if (outcome.revoked.access_token) await forgetTokens(deps.tokens, name, 'access', deps.now());
  throw keptTokens(name, outcome.failures[0]!.error);
}

/**
 * SPEC §9: logout deletes the secrets wherever they are, the client secret too (the OS store's
 * entry goes); the profile keeps its settings, so a login needs only the secret.
 */
async function forgetClientSecret(deps: ProfileSession['deps'], name: string): Promise<void> {
  await deps.profiles?.update((data) => {
    const profile = data.profiles?.[name];
    if (profile) delete profile.clientSecret;
  });
}

/** The failure of a logout that kept the tokens: the first failure's kind and code, its cause. */
function keptTokens(profile: string, first: DasvcError): DasvcError {
  return sameKind(
    first,
    `could not revoke the tokens of profile ${profile} (${first.message}); they are kept, since they may still be valid at the service`,
    { facts: { profile, keptTokens: true }, cause: first },
  );
}

/** A network or service failure while revoking, in words for people. */
export function revokeFailureReason(error: DasvcError): string {
  return error instanceof NetworkError ? 'the service could not be reached' : 'the service refused';
}
