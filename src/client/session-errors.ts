import { AuthError } from '../errors.js';
import { isExpired } from '../store/expiry.js';
import { DEFAULT_PROFILE, type StoreData } from '../store/profile-store.js';
import type { StoredTokens } from '../schemas/config-file.js';
import { normalizeTokens } from '../store/token-store.js';
import { isoSeconds } from '../util/duration.js';

// What a session that cannot give an access token says: not logged in, no refresh left, a
// refresh refused. In what the store knows, and no more (docs/design/refusal-causes.md).

/** An AuthError about a profile's session, with the profile (of which the CLI makes a login hint). */
export function sessionError(profile: string, message: string, code: string, cause?: unknown) {
  return new AuthError(message, { code, facts: { profile }, cause });
}

/** A profile named that does not exist, and the ones that do (the hint names one, not a login). */
export interface MissingProfile {
  profiles: string[];
  /** What named it: `--profile` or `DASVC_PROFILE`; absent for the file's active profile. */
  namedBy?: string;
}

/** Not logged in (exit 3): the profile holds no tokens, or does not exist at all. */
export function notLoggedIn(profile: string, missing?: MissingProfile): AuthError {
  if (!missing) return sessionError(profile, `not logged in (profile ${profile})`, 'not_logged_in');
  return new AuthError(
    `not logged in (profile ${profile}): there is no profile of that name; the profiles are ${missing.profiles.join(', ')}`,
    { code: 'not_logged_in', facts: { profile, ...missing } },
  );
}

/**
 * Whether `profile` names none of the profiles stored, while others exist: most likely a typo,
 * which a login would make into a profile. Undefined when it exists, when none exists, or for
 * the default profile: a login is then the next step.
 */
export function missingProfile(
  profile: string,
  data: StoreData,
  namedBy: string | undefined,
): MissingProfile | undefined {
  const profiles = Object.keys(data.profiles ?? {});
  if (profile === DEFAULT_PROFILE || profiles.length === 0 || profiles.includes(profile))
    return undefined;
  return { profiles, ...(namedBy === undefined ? {} : { namedBy }) };
}

/** What a person may conclude of a refusal that the service does not explain (RFC 6750 §3.1). */
const MAY_HAVE_ENDED = "may have expired on the service's clock or been revoked elsewhere";

/**
 * Why a session whose refresh token is gone gives no access token now, in what the store knows:
 * what this client did (revoked), what the service refused, the stored expiry; no more.
 */
export function noRefreshLeft(
  profile: string,
  seen: StoredTokens,
  /** Whether the API has just refused the access token. */
  rejected: boolean,
  now: number,
): { message: string; code: string } {
  const refreshPart = seen.refreshRefused
    ? `the service refused the refresh token of profile ${profile} earlier`
    : `profile ${profile} holds no refresh token`;
  const { accessToken, accessEnded: ended } = normalizeTokens(seen)!;
  if (accessToken === null) {
    if (ended === 'refused')
      return {
        message: seen.refreshRefused
          ? `the service refused the access token of profile ${profile} and then its refresh token: they ${MAY_HAVE_ENDED}`
          : `${refreshPart}, and the service refused its access token (it ${MAY_HAVE_ENDED})`,
        code: 'refused',
      };
    return {
      message:
        ended === 'revoked'
          ? `${refreshPart}, and its access token was revoked`
          : `${refreshPart}, and its access token is gone (revoked, or refused by the service)`,
      code: 'revoked',
    };
  }
  if (rejected)
    return {
      message: `${refreshPart}, and the service refused its access token (it ${MAY_HAVE_ENDED})`,
      code: 'not_refreshable',
    };
  if (seen.expiresAt === null || !isExpired(seen, now))
    return { message: refreshPart, code: 'not_refreshable' };
  return {
    message: `${refreshPart}, and its access token expired at ${isoSeconds(seen.expiresAt)}`,
    code: 'not_refreshable',
  };
}

/**
 * The words of a refresh the service refused (`invalid_grant`): the service's answer, and the
 * cause where the store knows it (the access token's stored expiry has passed), else what it may be.
 */
export function refreshRefusal(
  profile: string,
  tokens: StoredTokens,
  /** Whether the refresh followed the API's refusal of the access token. */
  rejected: boolean,
  error: Error,
  now: number,
): string {
  if (tokens.expiresAt !== null && isExpired(tokens, now))
    return `the service refused to refresh the session of profile ${profile} (${error.message}): its access token expired at ${isoSeconds(tokens.expiresAt)}, and a refresh must come before that`;
  // After the API refused the access token: said after that refusal (client.ts).
  if (rejected)
    return `the refresh that followed was refused too (${error.message}): the session of profile ${profile} ${MAY_HAVE_ENDED}`;
  return `the service refused the refresh token of profile ${profile} (${error.message}): it ${MAY_HAVE_ENDED}`;
}
