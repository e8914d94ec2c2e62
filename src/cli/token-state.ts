import { secretsLocation } from '../store/profile-secrets.js';
import { formatDuration } from '../util/duration.js';
import { canRefresh, isExpired, secondsLeft, type TokenTimes } from '../store/expiry.js';
import type { Profile, StoreData, StoredTokens } from '../store/profile-store.js';
import { usableAccessToken, type SessionDeps } from '../store/session.js';
import type { CliDeps } from './context.js';
import {
  endpointOrMissing,
  pickSetting,
  resolveClient,
  resolveEndpoints,
  resolvePlacement,
  SETTINGS,
  type FlagValues,
} from './settings.js';

/** The profile a command works on, read once. */
export interface ProfileView {
  data: StoreData;
  name: string;
  profile: Profile | undefined;
}

/** Reads the store and picks the profile (SPEC §2 order). */
export function loadProfile(deps: CliDeps): ProfileView {
  const data = deps.store.read();
  const name = deps.profileName(data);
  return { data, name, profile: data.profiles?.[name] };
}

/** Base URL flag > env > profile, normalised lazily by the endpoint helpers; undefined when none. */
export function baseUrlOf(
  options: FlagValues,
  deps: CliDeps,
  profile: Profile | undefined,
): string | undefined {
  return pickSetting(SETTINGS.baseUrl, options, deps.env, profile)?.value;
}

/** The dependencies of refresh for one profile, settings resolved flag > env > profile. */
export function sessionDeps(options: FlagValues, deps: CliDeps, view: ProfileView): SessionDeps {
  return {
    store: deps.store,
    profile: view.name,
    send: deps.send,
    now: deps.now,
    refreshSettings: () => {
      const endpoints = resolveEndpoints(
        baseUrlOf(options, deps, view.profile),
        options,
        deps.env,
        view.profile,
      );
      return {
        client: resolveClient(options, deps.env, view.profile),
        refreshUrl: endpointOrMissing(endpoints, 'refresh'),
        placement: resolvePlacement(options, deps.env, view.profile),
      };
    },
  };
}

/** Expiry in the JSON outputs: ISO time and seconds left, or nulls when unknown. */
function expiryJson(
  tokens: TokenTimes,
  now: number,
): { expiresAt: string | null; expiresIn: number | null } {
  const left = secondsLeft(tokens, now);
  return {
    expiresAt: tokens.expiresAt === null ? null : new Date(tokens.expiresAt).toISOString(),
    expiresIn: left === null ? null : Math.floor(left),
  };
}

/** "expires in 59m 58s (2025-01-01T12:00:00.000Z)", "expired 3m ago (…)", or "expiry unknown". */
export function describeExpiry(tokens: TokenTimes, now: number): string {
  const left = secondsLeft(tokens, now);
  if (left === null || tokens.expiresAt === null) return 'expiry unknown';
  const at = new Date(tokens.expiresAt).toISOString();
  return left > 0
    ? `expires in ${formatDuration(left)} (${at})`
    : `expired ${formatDuration(-left)} ago (${at})`;
}

/** ISO time to the second: `2026-11-22T15:04:05Z`. */
function isoSeconds(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The one-line result of login and refresh on stdout (SPEC §3 "prints profile, scope and expiry"):
 * `profile default · scope crm · access token expires 2026-11-22T15:04:05Z (in 1h)`. Never a token.
 */
export function sessionSummary(
  name: string,
  profile: Profile,
  tokens: TokenTimes,
  now: number,
): string {
  const left = secondsLeft(tokens, now);
  const expiry =
    left === null || tokens.expiresAt === null
      ? 'expiry unknown'
      : left > 0
        ? `expires ${isoSeconds(tokens.expiresAt)} (in ${formatDuration(left)})`
        : `expired ${isoSeconds(tokens.expiresAt)} (${formatDuration(-left)} ago)`;
  return `profile ${name} · scope ${profile.scope || '(none)'} · access token ${expiry}`;
}

/** Whether the stored access token was revoked (`token revoke` of the access token alone). */
export function accessRevoked(tokens: StoredTokens): boolean {
  return usableAccessToken(tokens) === null;
}

/**
 * Whether the stored session can still be used: a live access token, or a refresh still possible
 * (SERVICE.md §4.3). `token status` exits 3 when not.
 */
export function sessionUsable(tokens: StoredTokens, now: number): boolean {
  if (canRefresh(tokens, now)) return true;
  return !accessRevoked(tokens) && !isExpired(tokens, now);
}

/** The token state as scripts read it (`--json`), never the tokens themselves. */
export function tokenStateJson(
  name: string,
  profile: Profile,
  tokens: StoredTokens,
  now: number,
): Record<string, unknown> {
  return {
    profile: name,
    baseUrl: profile.baseUrl ?? null,
    clientId: profile.clientId ?? null,
    scope: profile.scope ?? null,
    ...expiryJson(tokens, now),
    expired: isExpired(tokens, now),
    revoked: accessRevoked(tokens),
    refreshable: canRefresh(tokens, now),
    obtainedAt: new Date(tokens.obtainedAt).toISOString(),
    // Where the tokens live (SPEC §9): `keychain` (the OS credential store) or `file`.
    storage: secretsLocation(profile),
  };
}
