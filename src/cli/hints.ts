import type { DasvcError } from '../errors.js';
import { DEFAULT_PROFILE } from '../store/profile-store.js';
import { SETTINGS } from '../client/settings.js';
import { nearestNames } from '../rpc/nearest-names.js';
import { shellWord } from './shell-word.js';

/** The command that logs a profile in. */
export function loginHint(profile: string): string {
  return profile === DEFAULT_PROFILE ? 'dasvc login' : `dasvc login --profile ${profile}`;
}

/** Hints that depend on the code alone. */
const BY_CODE: Record<string, string> = {
  login_timeout: 'run dasvc login again (use --timeout SECONDS for more time)',
  state_mismatch: 'start again with dasvc login; if this repeats, someone may be forging redirects',
  no_authorization_page:
    'check --authorize-url (or --base-url): the installation shows no authorization page there',
};

const SESSION_CODES = new Set([
  'not_logged_in',
  'revoked',
  'refused',
  'expired',
  'invalid_grant',
  'not_refreshable',
  'no_stored_token',
]);

/**
 * The next step for a person, under the message (SPEC §4): made here, in the CLI, from the error's
 * stable code and detail; the client and the protocol code carry no terminal advice.
 */
export function hintFor(error: DasvcError): string | undefined {
  if (error.hint) return error.hint;
  if (error.code !== undefined && Object.hasOwn(BY_CODE, error.code)) return BY_CODE[error.code];
  const detail = (
    typeof error.detail === 'object' && error.detail !== null ? error.detail : {}
  ) as RefusalDetail & MissingProfileDetail & ClientDetail;
  if (error.code === 'not_logged_in' && Array.isArray(detail.profiles))
    return missingProfileHint(detail);
  if (
    error.code !== undefined &&
    SESSION_CODES.has(error.code) &&
    typeof detail.profile === 'string'
  )
    return loginHint(detail.profile);
  if (error.code === 'invalid_token' || error.code === 'insufficient_scope')
    return refusedTokenHint(error.code, detail);
  if (error.code === 'invalid_client') return clientHint(detail);
  if (error.code === 'http_404') return scopesHint(detail);
  if (error.code === 'other_installation') return otherInstallationHint(detail);
  return undefined;
}

/** What the client tells of a profile named that does not exist (src/client/session.ts). */
interface MissingProfileDetail {
  profiles?: unknown;
  namedBy?: unknown;
}

/**
 * A profile named that does not exist while others do: most likely a typo, so the hint names the
 * nearest profile (or all of them), never the login that would create the typo.
 */
function missingProfileHint(detail: MissingProfileDetail & RefusalDetail): string | undefined {
  const profiles = (detail.profiles as unknown[]).filter((p) => typeof p === 'string');
  const wanted = typeof detail.profile === 'string' ? detail.profile : '';
  const by = detail.namedBy === 'DASVC_PROFILE' ? 'DASVC_PROFILE=' : '--profile ';
  const nearest = nearestNames(wanted, profiles, 1)[0];
  if (nearest !== undefined)
    return `did you mean ${by}${nearest}? (dasvc profile list shows them all)`;
  return `name one of the profiles with ${by.trim().replace(/=$/, '')}: ${profiles.join(', ')} (dasvc profile list)`;
}

/** What the client tells of a client the service did not accept (src/client/client-refused.ts). */
interface ClientDetail {
  clientId?: unknown;
  secretFrom?: unknown;
}

/** Where a client secret came from, in the words of the flag, the variable or the profile. */
function secretOrigin(from: unknown, profile: string | undefined): string {
  if (from === 'option') return 'the client secret given with --client-secret';
  if (from === 'env') return 'the client secret in DASVC_CLIENT_SECRET';
  if (from === 'prompt') return 'the client secret typed at the prompt';
  return profile === undefined
    ? 'the client secret'
    : `the client secret stored in profile ${profile}`;
}

/**
 * `invalid_client` at the token, refresh or revoke endpoint: the secret sent (and where it came
 * from) is the likely culprit, else the client id; the fix is the flag or the variable, and a
 * stored secret is replaced by the profile's login.
 */
function clientHint(detail: ClientDetail & RefusalDetail): string | undefined {
  if (typeof detail.clientId !== 'string') return undefined;
  const profile = typeof detail.profile === 'string' ? detail.profile : undefined;
  const origin = secretOrigin(detail.secretFrom, profile);
  const store =
    detail.secretFrom === 'profile' && profile !== undefined
      ? `; ${loginHint(profile)} --client-secret SECRET stores the right one`
      : '';
  const which =
    profile === undefined || detail.secretFrom === 'profile' ? '' : ` (profile ${profile})`;
  return `${origin} was not accepted for client ${detail.clientId}${which}: give the right one with --client-secret or DASVC_CLIENT_SECRET, or check that the client id is registered${store}`;
}

/** An unknown instance (HTTP 404 from the API): the scopes the profile was granted, nearest first. */
function scopesHint(detail: RefusalDetail): string | undefined {
  if (typeof detail.profile !== 'string' || typeof detail.granted !== 'string') return undefined;
  const granted = detail.granted.split(/\s+/).filter(Boolean);
  if (granted.length === 0) return undefined;
  const scope = typeof detail.scope === 'string' ? detail.scope : '';
  const nearest = nearestNames(scope, granted, 1)[0];
  const held = `profile ${detail.profile} was granted scope ${granted.join(' ')}`;
  return nearest === undefined ? held : `did you mean ${nearest}? (${held})`;
}

/** What the client tells about settings naming another installation (credential-binding.ts). */
interface ForeignDetail {
  profile?: unknown;
  setting?: unknown;
  given?: unknown;
  source?: unknown;
  withheld?: unknown;
}

/**
 * The login that binds the profile to the installation named: a variable is read by the login
 * as it is; a flag is repeated. (A withheld secret's message says where to give the other one.)
 */
function otherInstallationHint(detail: ForeignDetail): string | undefined {
  if (detail.withheld !== 'tokens') return undefined;
  if (typeof detail.profile !== 'string' || typeof detail.setting !== 'string') return undefined;
  const spec = (SETTINGS as Record<string, { flag: string } | undefined>)[detail.setting];
  const flag =
    detail.source === 'option' && spec && typeof detail.given === 'string'
      ? ` ${spec.flag} ${shellWord(detail.given)}`
      : '';
  return `to log profile ${detail.profile} in there: ${loginHint(detail.profile)}${flag} (with that installation's client secret)`;
}

/** What the client tells about a refused token (src/client/client.ts `refusedToken`). */
interface RefusalDetail {
  profile?: unknown;
  scope?: unknown;
  granted?: unknown;
  tokenFrom?: unknown;
  /** How the profile's client ended the token given (`replaced`, `revoked`), when it remembers. */
  ended?: unknown;
}

/**
 * Issue 9.6: a token given as `--token`/`DASVC_TOKEN` is what to fix; a 403 asks for a login with
 * the scope the profile holds and the one it lacks (a login with the lacking one alone would drop
 * the others), in the same profile; a 401 asks for the profile's login as it is, never a --scope.
 */
function refusedTokenHint(code: string, detail: RefusalDetail): string | undefined {
  const scope = typeof detail.scope === 'string' ? detail.scope : undefined;
  if (typeof detail.tokenFrom === 'string' && typeof detail.ended === 'string')
    return `${detail.tokenFrom} holds an access token that dasvc ${detail.ended === 'replaced' ? 'replaced by a refresh' : 'revoked'}: give the current one (dasvc token print prints it), or leave it out to use the profile`;
  if (typeof detail.tokenFrom === 'string')
    return `${detail.tokenFrom} holds a token the service refused${code === 'insufficient_scope' && scope ? ` for scope ${scope}` : ''}: give a valid access token (dasvc token print prints the stored one), or leave it out to use the profile`;
  if (typeof detail.profile !== 'string') return scope ? `dasvc login --scope ${scope}` : undefined;
  if (code === 'invalid_token' || !scope) return loginHint(detail.profile);
  const granted = typeof detail.granted === 'string' ? detail.granted.split(/\s+/) : [];
  const union = [...new Set([...granted, scope].filter(Boolean))].join(' ');
  return `${loginHint(detail.profile)} --scope ${union.includes(' ') ? `"${union}"` : union}`;
}
