import { sessionStatus, type SessionStatus } from '../client/status.js';
import { formatDuration, isoSeconds } from '../util/duration.js';
import { secondsLeft, type TokenTimes } from '../store/expiry.js';
import type { StoreData } from '../store/profile-store.js';
import type { Profile, StoredTokens } from '../schemas/config-file.js';
import type { CliDeps } from './context.js';

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

/** "expires in 59m 58s (2025-01-01T12:00:00.000Z)", "expired 3m ago (…)", or "expiry unknown". */
export function describeExpiry(tokens: TokenTimes, now: number): string {
  const left = secondsLeft(tokens, now);
  if (left === null || tokens.expiresAt === null) return 'expiry unknown';
  const at = new Date(tokens.expiresAt).toISOString();
  return left > 0
    ? `expires in ${formatDuration(left)} (${at})`
    : `expired ${formatDuration(-left)} ago (${at})`;
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

/**
 * The token state of stored tokens (`--json` of login, refresh, profile show): the fields and
 * names of `token status --json` and the library's `status()`, never a token.
 */
export function tokenStateJson(
  name: string,
  profile: Profile,
  tokens: StoredTokens,
  now: number,
): SessionStatus {
  return sessionStatus(name, profile, tokens, now);
}

/**
 * The one line that says a login or a refresh is done: the summary on stdout, as the result
 * (SPEC §3), and nothing more on stderr, where a second, reworded line would tell the same event
 * twice. With `--json` the result is the token state, and the person reads the summary on stderr.
 */
export function sayDone(
  deps: CliDeps,
  done: string,
  state: SessionStatus,
  summary: () => string,
): void {
  if (deps.out.json) {
    deps.out.result(state);
    deps.out.success(`${done}: ${summary()}`);
  } else deps.out.line(summary());
}
