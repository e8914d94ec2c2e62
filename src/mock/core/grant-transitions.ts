import type { GrantRecord } from '../../schemas/state-file.js';
import type { TokenKind } from './ended-tokens.js';

// The records of the mock's state and the transitions of one record, pure: no store, no clock,
// no randomness (the caller passes the time and the new tokens). MockState applies them to its
// tables and journals the change.

/** A token as looked up (a view; the store keeps token → grant id only). */
export interface TokenRecord {
  kind: 'access' | 'refresh';
  grantId: number;
  expiresAt: number;
  /** A refresh token already exchanged: kept until expiry so that its reuse is recognised. */
  rotated?: boolean;
}

/** A live access token as the API sees it. */
export interface Authorization {
  clientId: string;
  user: string;
  scopes: string[];
}

/** Token endpoint success (SERVICE.md 2.3); `expires_in` is seconds as a string (SPEC §5). */
export interface TokenPair {
  access_token: string;
  /** Only for requests made the RFC 6749 way (§5.1), added by the token route. */
  token_type?: 'Bearer';
  expires_in: string;
  refresh_token: string;
}

export interface Lifetimes {
  codeSeconds: number;
  accessSeconds: number;
  refreshSeconds: number;
}

/** Why an expired token expired: a refresh token that ends with its access token says so. */
export function expiredWhy(kind: TokenKind, grant: GrantRecord): string {
  return kind === 'refresh' && grant.refreshExpiresAt === grant.accessExpiresAt
    ? 'expired with its access token (a refresh must come before the access token expires)'
    : 'expired';
}

/** Which of the grant's live tokens `token` is, if either. */
export function kindIn(grant: GrantRecord | undefined, token: string): TokenKind | undefined {
  return grant?.access === token ? 'access' : grant?.refresh === token ? 'refresh' : undefined;
}

/**
 * A grant without tokens yet. Every field is set from the start, and later set to undefined
 * rather than deleted: one object shape for all grants (`delete` turns an object into a slow
 * dictionary).
 */
export function newGrant(from: Authorization, scopes: string[]): GrantRecord {
  return {
    clientId: from.clientId,
    user: from.user,
    scopes,
    access: undefined,
    accessExpiresAt: undefined,
    refresh: undefined,
    refreshExpiresAt: undefined,
    // undefined unless true: a state file without it stays readable by older versions.
    refreshUsed: undefined,
  };
}

/**
 * Gives `grant` the pair `access` + `refresh` at `now` and answers it. The refresh token lives
 * its own lifetime only with the refreshAfterExpiry quirk; else it ends with its access token
 * (SERVICE.md 4.3). A refresh token handed out again stays marked used.
 */
export function issuePair(
  grant: GrantRecord,
  now: number,
  lifetimes: Lifetimes,
  refreshOutlivesAccess: boolean,
  access: string,
  refresh: string,
): TokenPair {
  const accessExpiresAt = now + lifetimes.accessSeconds * 1000;
  grant.access = access;
  grant.accessExpiresAt = accessExpiresAt;
  if (grant.refresh !== refresh) grant.refreshUsed = undefined;
  grant.refresh = refresh;
  const refreshExpiresAt = now + lifetimes.refreshSeconds * 1000;
  grant.refreshExpiresAt = refreshOutlivesAccess
    ? refreshExpiresAt
    : Math.min(refreshExpiresAt, accessExpiresAt);
  return {
    access_token: access,
    // Whole seconds left, rounded down (never more than the truth; ≥ 1 as TTLs are ≥ 1 s).
    expires_in: String(Math.max(1, Math.floor((accessExpiresAt - now) / 1000))),
    refresh_token: refresh,
  };
}

/**
 * Drops the grant's tokens that expired by `now`, telling `ended` of each, and says whether the
 * grant is left empty (it had tokens and has none now; a grant not yet given any is not).
 */
export function expireTokens(
  grant: GrantRecord,
  now: number,
  ended: (token: string, kind: TokenKind, at: number) => void,
): boolean {
  if (grant.access !== undefined && grant.accessExpiresAt! <= now) {
    ended(grant.access, 'access', grant.accessExpiresAt!);
    grant.access = undefined;
  }
  if (grant.refresh !== undefined && grant.refreshExpiresAt! <= now) {
    ended(grant.refresh, 'refresh', grant.refreshExpiresAt!);
    grant.refresh = undefined;
  }
  const fresh = grant.accessExpiresAt === undefined && grant.refreshExpiresAt === undefined;
  return !fresh && grant.access === undefined && grant.refresh === undefined;
}
