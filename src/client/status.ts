import { canRefresh, isExpired, secondsLeft } from '../store/expiry.js';
import type { Profile, StoredTokens } from '../schemas/config-file.js';
import { secretsLocation } from '../store/profile-secrets.js';
import { normalizeTokens } from '../store/token-store.js';

/** A session's state as scripts and integrators read it (SPEC §3 `token status --json`), never a token. */
export interface SessionStatus {
  profile: string;
  loggedIn: boolean;
  /** A live access token, or a refresh still possible (SERVICE.md §4.3). */
  usable: boolean;
  baseUrl: string | null;
  clientId: string | null;
  scope: string | null;
  expiresAt: string | null;
  expiresIn: number | null;
  expired: boolean;
  /** The access token was revoked by this client (`token revoke`, `client.revoke()`). */
  revoked: boolean;
  /**
   * The service refused a token of this session (the access token at the API, then the refresh
   * token): why (expired on its clock, revoked elsewhere) only the service knows.
   */
  refused: boolean;
  refreshable: boolean;
  obtainedAt: string | null;
  /**
   * Where the tokens live (SPEC §9): the OS credential store, the config file (0600), or this
   * client object alone (`store: 'memory'`).
   */
  storage: 'keychain' | 'file' | 'memory';
}

/** The state of one profile's session at `now` (pure). */
export function sessionStatus(
  name: string,
  profile: Profile | undefined,
  tokens: StoredTokens | undefined,
  now: number,
  storage: SessionStatus['storage'] = secretsLocation(profile),
): SessionStatus {
  const left = tokens ? secondsLeft(tokens, now) : null;
  const held = normalizeTokens(tokens);
  const gone = held ? held.accessToken === null : false;
  const refused = held ? held.accessEnded === 'refused' || held.refreshRefused === true : false;
  const refreshable = tokens ? canRefresh(tokens, now) : false;
  const expired = tokens ? isExpired(tokens, now) : false;
  return {
    profile: name,
    loggedIn: Boolean(tokens),
    usable: Boolean(tokens) && (refreshable || (!gone && !expired)),
    baseUrl: profile?.baseUrl ?? null,
    clientId: profile?.clientId ?? null,
    scope: profile?.scope ?? null,
    expiresAt:
      tokens?.expiresAt === null || tokens === undefined
        ? null
        : new Date(tokens.expiresAt).toISOString(),
    expiresIn: left === null ? null : Math.floor(left),
    expired,
    revoked: gone && held?.accessEnded !== 'refused',
    refused,
    refreshable,
    obtainedAt: tokens ? new Date(tokens.obtainedAt).toISOString() : null,
    storage,
  };
}
