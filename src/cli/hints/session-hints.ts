import { DEFAULT_PROFILE } from '../../store/profile-store.js';
import { SETTINGS } from '../../client/settings.js';
import { nearestNames } from '../../util/nearest-names.js';
import { shellWord } from '../shell-word.js';
import { namesOf, textOf, type Facts, type HintRule } from './facts.js';

/** The command that logs a profile in. */
export function loginHint(profile: string): string {
  return profile === DEFAULT_PROFILE ? 'dasvc login' : `dasvc login --profile ${profile}`;
}

/**
 * Hints of the login's own failures, each with the fact that login sets: the same code from a
 * server (an error redirect, a token answer) is the server's word, not this failure.
 */
const LOGIN_FAILURES: Record<string, [fact: string, hint: string]> = {
  login_timeout: ['timeoutSeconds', 'run dasvc login again (use --timeout SECONDS for more time)'],
  state_mismatch: [
    'refusedBy',
    'start again with dasvc login; if this repeats, someone may be forging redirects',
  ],
  repeated_parameter: [
    'parameter',
    'start again with dasvc login and paste the redirect as the browser shows it; if this repeats, someone may be forging redirects',
  ],
  no_authorization_page: [
    'authorizeUrl',
    'check --authorize-url (or --base-url): the installation shows no authorization page there',
  ],
  // The installation's refusals by redirect (RFC 6749 §4.1.2.1) that the person can act on.
  access_denied: [
    'refusedBy',
    'the authorization was declined on the consent page: run dasvc login again and approve it',
  ],
  invalid_scope: [
    'refusedBy',
    'ask only for instances this user may use: dasvc login --scope "<instances>"',
  ],
};

/** The codes of a session that has ended, fixed by logging its profile in again. */
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
 * Logging in and using a session: made from what the client tells (src/client/): the profile,
 * the scope asked for and the one granted, where a token or a client secret came from.
 */
export const sessionHint: HintRule = (code, facts) => {
  if (Object.hasOwn(LOGIN_FAILURES, code)) {
    const [fact, hint] = LOGIN_FAILURES[code]!;
    return facts[fact] === undefined ? undefined : hint;
  }
  // The login's loopback listener; the mock's names its host (mock-hints.ts).
  if (code === 'listen_failed' && facts.errno === 'EADDRINUSE' && facts.host === undefined)
    return 'choose another --port, or omit it for a free one';
  if (code === 'listen_failed' && facts.errno === 'EACCES' && facts.host === undefined)
    return 'ports below 1024 need privileges: choose another --port, or omit it for a free one';
  const profile = textOf(facts.profile);
  if (code === 'not_logged_in' && Array.isArray(facts.profiles)) return missingProfileHint(facts);
  // A command that takes a token (rpc) names the way in of a CI job with no stored profile.
  if (code === 'not_logged_in' && profile !== undefined && facts.tokenWayIn === true)
    return `${loginHint(profile)}; without a stored profile (CI): DASVC_TOKEN and DASVC_BASE_URL`;
  if (SESSION_CODES.has(code) && profile !== undefined) return loginHint(profile);
  if (code === 'invalid_token' || code === 'insufficient_scope')
    return refusedTokenHint(code, facts);
  if (code === 'invalid_client') return clientHint(facts);
  if (code === 'http_404') return scopesHint(facts);
  if (code === 'other_installation') return otherInstallationHint(facts);
  return undefined;
};

/**
 * A profile named that does not exist while others do (`profiles`, and `namedBy`): most likely a
 * typo, so the hint names the nearest profile (or all of them), never the login that would
 * create the typo.
 */
function missingProfileHint(facts: Facts): string {
  const profiles = namesOf(facts.profiles);
  const wanted = textOf(facts.profile) ?? '';
  const by = facts.namedBy === 'DASVC_PROFILE' ? 'DASVC_PROFILE=' : '--profile ';
  const nearest = nearestNames(wanted, profiles, 1)[0];
  if (nearest !== undefined)
    return `did you mean ${by}${nearest}? (dasvc profile list shows them all)`;
  return `name one of the profiles with ${by.trim().replace(/=$/, '')}: ${profiles.join(', ')} (dasvc profile list)`;
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
 * `invalid_client` at the token, refresh or revoke endpoint (src/client/client-refused.ts): the
 * secret sent (and where it came from) is the likely culprit, else the client id; the fix is the
 * flag or the variable, and a stored secret is replaced by the profile's login.
 */
function clientHint(facts: Facts): string | undefined {
  const clientId = textOf(facts.clientId);
  if (clientId === undefined) return undefined;
  const profile = textOf(facts.profile);
  if (facts.endpoint === 'authorization') {
    const of = profile === undefined ? '' : ` (profile ${profile})`;
    return `the installation does not know client ${clientId}${of}: check --client-id or DASVC_CLIENT_ID`;
  }
  const origin = secretOrigin(facts.secretFrom, profile);
  const store =
    facts.secretFrom === 'profile' && profile !== undefined
      ? `; ${loginHint(profile)} --client-secret SECRET stores the right one`
      : '';
  const which =
    profile === undefined || facts.secretFrom === 'profile' ? '' : ` (profile ${profile})`;
  return `${origin} was not accepted for client ${clientId}${which}: give the right one with --client-secret or DASVC_CLIENT_SECRET, or check that the client id is registered${store}`;
}

/** An unknown instance (HTTP 404 from the API): the scopes the profile was granted, nearest first. */
function scopesHint(facts: Facts): string | undefined {
  const profile = textOf(facts.profile);
  const granted = (textOf(facts.granted) ?? '').split(/\s+/).filter(Boolean);
  if (profile === undefined || granted.length === 0) return undefined;
  const nearest = nearestNames(textOf(facts.scope) ?? '', granted, 1)[0];
  const held = `profile ${profile} was granted scope ${granted.join(' ')}`;
  return nearest === undefined ? held : `did you mean ${nearest}? (${held})`;
}

/**
 * Settings naming another installation than the profile's (src/client/credential-binding.ts):
 * the login that binds the profile to the installation named. A variable is read by the login as
 * it is; a flag is repeated. (A withheld secret's message says where to give the other one.)
 */
function otherInstallationHint(facts: Facts): string | undefined {
  const profile = textOf(facts.profile);
  const setting = textOf(facts.setting);
  if (facts.withheld !== 'tokens' || profile === undefined || setting === undefined)
    return undefined;
  const spec = (SETTINGS as Record<string, { flag: string } | undefined>)[setting];
  const given = textOf(facts.given);
  const flag =
    facts.source === 'option' && spec && given !== undefined
      ? ` ${spec.flag} ${shellWord(given)}`
      : '';
  return `to log profile ${profile} in there: ${loginHint(profile)}${flag} (with that installation's client secret)`;
}

/**
 * A refused token (src/client/api-send.ts): a token given as `--token`/`DASVC_TOKEN` is what to
 * fix; a 403 asks for a login with the scope the profile holds and the one it lacks (a login with
 * the lacking one alone would drop the others), in the same profile; a 401 asks for the profile's
 * login as it is, never a --scope.
 */
function refusedTokenHint(code: string, facts: Facts): string | undefined {
  const scope = textOf(facts.scope);
  const tokenFrom = textOf(facts.tokenFrom);
  const profile = textOf(facts.profile);
  if (tokenFrom !== undefined && typeof facts.ended === 'string')
    return `${tokenFrom} holds an access token that dasvc ${facts.ended === 'replaced' ? 'replaced by a refresh' : 'revoked'}: give the current one (dasvc token print prints it), or leave it out to use the profile`;
  if (tokenFrom !== undefined)
    return `${tokenFrom} holds a token the service refused${code === 'insufficient_scope' && scope ? ` for scope ${scope}` : ''}: give a valid access token (dasvc token print prints the stored one), or leave it out to use the profile`;
  if (profile === undefined) return scope ? `dasvc login --scope ${scope}` : undefined;
  if (code === 'invalid_token' || !scope) return loginHint(profile);
  const granted = (textOf(facts.granted) ?? '').split(/\s+/);
  const union = [...new Set([...granted, scope].filter(Boolean))].join(' ');
  return `${loginHint(profile)} --scope ${union.includes(' ') ? `"${union}"` : union}`;
}
