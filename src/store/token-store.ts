import type { ProfileStore, StoreData } from './profile-store.js';
import type { EndedAccess, StoredTokens } from '../schemas/config-file.js';
import { nodeCrypto } from '../util/node-crypto.js';

/** Writes a profile's tokens (undefined forgets them); prepared before it is handed out. */
export type SaveTokens = (tokens: StoredTokens | undefined) => Promise<void>;

/**
 * Where a profile's tokens live, behind one small interface: the config file today, the OS
 * keychain or memory (`store: 'memory'`) as other implementations. The client reads and writes
 * tokens through this alone.
 */
export interface TokenStore {
  /** The profile's tokens as stored now (no lock). */
  load(profile: string): Promise<StoredTokens | undefined>;
  /**
   * Runs `fn` holding the cross-process lock, with the tokens read afresh under it and `save`
   * ready: everything a write needs is loaded and opened before `fn` runs, so that a refresh can
   * store the rotated pair as the first thing after the service's answer.
   */
  update<T>(
    profile: string,
    fn: (tokens: StoredTokens | undefined, save: SaveTokens) => Promise<T>,
  ): Promise<T>;
  /** Replaces the profile's tokens under the lock without reading the old ones (a new login). */
  replace(profile: string, tokens: StoredTokens): Promise<void>;
}

/**
 * The one encoding of a revoked access token in the store (SPEC §2): `accessToken: null`, the
 * expiry kept. Older files wrote an empty string or `accessRevoked: true`; both read as null, the
 * flag as `accessEnded: 'revoked'` (only a revoke set it).
 */
export function normalizeTokens(tokens: StoredTokens | undefined): StoredTokens | undefined {
  if (tokens === undefined) return undefined;
  const { accessRevoked, accessEnded, ...rest } = tokens;
  const revoked = accessRevoked === true || rest.accessToken === '' || rest.accessToken === null;
  const ended = accessEnded ?? (accessRevoked === true ? 'revoked' : undefined);
  return {
    ...rest,
    accessToken: revoked ? null : rest.accessToken,
    ...(revoked && ended !== undefined ? { accessEnded: ended } : {}),
  };
}

/** How many ended access tokens a profile remembers (by fingerprint). */
const ENDED_KEPT = 4;

/**
 * A token's fingerprint: enough of its SHA-256 to recognise it, nothing to use it with. Stored
 * beside the tokens to tell a refused `--token` that this client replaced or revoked.
 */
export function tokenFingerprint(token: string): string {
  return nodeCrypto().createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/** `tokens` with the access token they hold remembered as ended (`how`, at `now`), if they hold one. */
export function rememberEnded(
  tokens: StoredTokens,
  how: EndedAccess['how'],
  now: number,
): EndedAccess[] | undefined {
  const access = normalizeTokens(tokens)!.accessToken;
  const kept = tokens.endedAccess ?? [];
  if (access === null) return kept.length > 0 ? kept : undefined;
  return [{ fingerprint: tokenFingerprint(access), how, at: now }, ...kept].slice(0, ENDED_KEPT);
}

/** How this profile's client ended `token`, when it remembers doing so. */
export function endedHow(tokens: StoredTokens | undefined, token: string): EndedAccess | undefined {
  if (!tokens?.endedAccess) return undefined;
  const fingerprint = tokenFingerprint(token);
  return tokens.endedAccess.find((ended) => ended.fingerprint === fingerprint);
}

/** Tokens kept in the config file of a ProfileStore, under its lock file. */
export function fileTokenStore(store: ProfileStore): TokenStore {
  const open = (
    profile: string,
    fn: (data: StoreData, save: SaveTokens) => Promise<void | unknown>,
  ) =>
    store.locked(async () => {
      const { data, write } = await store.prepareTokensWrite(profile);
      return fn(data, async (tokens) => write(tokens));
    });
  return {
    load: async (profile) => {
      const stored = store.read().profiles?.[profile];
      await store.loadSecrets(stored, profile);
      return normalizeTokens(stored?.tokens);
    },
    update: (profile, fn) =>
      open(profile, (data, save) =>
        fn(normalizeTokens(data.profiles?.[profile]?.tokens), save),
      ) as ReturnType<typeof fn>,
    replace: async (profile, tokens) => {
      await open(profile, (_data, save) => save(tokens));
    },
  };
}

/** Tokens held by one client object alone (SPEC §1 `store: 'memory'`); calls are serialised. */
export function memoryTokenStore(): TokenStore {
  const held = new Map<string, StoredTokens>();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    load: async (profile) => held.get(profile),
    update: (profile, fn) => {
      const run = queue.then(() =>
        fn(held.get(profile), async (tokens) => {
          if (tokens === undefined) held.delete(profile);
          else held.set(profile, tokens);
        }),
      );
      queue = run.catch(() => undefined);
      return run;
    },
    replace: async (profile, tokens) => {
      held.set(profile, tokens);
    },
  };
}
