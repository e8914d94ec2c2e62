import type { TokenSet } from '../oauth/token-response.js';

/** What the expiry arithmetic reads of a token set (stored or fresh). */
export type TokenTimes = Pick<TokenSet, 'refreshToken' | 'expiresAt' | 'obtainedAt'>;

/** Floor of the refresh margin (SPEC §3: "less than 60 s or 10 % of the lifetime, the larger"). */
const MIN_REFRESH_MARGIN_SECONDS = 60;

/** Seconds before expiry at which a refresh is due: the profile's own margin, else max(60 s, 10 % of lifetime). */
export function refreshMarginSeconds(tokens: TokenTimes, configured?: number): number {
  if (configured !== undefined) return configured;
  if (tokens.expiresAt === null) return MIN_REFRESH_MARGIN_SECONDS;
  const lifetime = Math.max(0, (tokens.expiresAt - tokens.obtainedAt) / 1000);
  return Math.max(MIN_REFRESH_MARGIN_SECONDS, lifetime / 10);
}

/** Seconds left on the access token; null when the expiry is unknown. Negative once expired. */
export function secondsLeft(tokens: TokenTimes, now: number): number | null {
  return tokens.expiresAt === null ? null : (tokens.expiresAt - now) / 1000;
}

/** True once the access token has passed its expiry (unknown expiry never counts as expired). */
export function isExpired(tokens: TokenTimes, now: number): boolean {
  return tokens.expiresAt !== null && now >= tokens.expiresAt;
}

/** True when a refresh should happen before using the token (SPEC §3 refresh margin). */
export function isRefreshDue(tokens: TokenTimes, now: number, configuredMargin?: number): boolean {
  const left = secondsLeft(tokens, now);
  return left !== null && left < refreshMarginSeconds(tokens, configuredMargin);
}

/** Whether a refresh is still possible: a refresh token, and an access token not yet expired (SERVICE.md §4.3). */
export function canRefresh(tokens: TokenTimes, now: number): boolean {
  return tokens.refreshToken !== null && !isExpired(tokens, now);
}
