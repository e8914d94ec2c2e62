import type { SendFn } from '../../../http/types.js';
import { apiUrlFor } from '../../../oauth/endpoints.js';
import { methodsOf } from '../../../rpc/discover.js';
import { buildApiRequest, buildCall, processApiResponse } from '../../../rpc/jsonrpc.js';
import { ResolvedSettings } from '../../../client/resolve-settings.js';
import { configFile } from '../../../store/config-path.js';
import { withFileLock } from '../../../store/file-lock.js';
import { KEYCHAIN_TIMEOUT_MS } from '../../../store/keychain.js';
import { secretsLocation } from '../../../store/profile-secrets.js';
import { ProfileStore } from '../../../store/profile-store.js';
import type { Profile } from '../../../schemas/config-file.js';
import { isObject } from '../../../util/guards.js';
import type { Env } from '../../../util/env.js';
import {
  cacheFolder,
  isFresh,
  makeCacheFolder,
  readMethodCache,
  refreshLock,
  REFRESH_LOCK_STALE_MS,
  storeScope,
} from './method-cache.js';

/** The refresher ends by then, whatever it waits on (its process exits). */
export const REFRESH_BOUND_MS = 15_000;
/** One `rpc.discover` may take this long. */
export const REFRESH_REQUEST_MS = 5000;

export interface RefreshIo {
  env: Env;
  now: () => number;
  send: SendFn;
  /** How long the OS credential store may take to hand over the token. */
  keychainTimeoutMs: number;
}

/**
 * The API URL template stored with the profile at login. Flags and variables (`DASVC_BASE_URL`,
 * `DASVC_API_URL`) have no say: the profile's token goes only where it was issued for.
 */
export function storedApiTemplate(profile: Profile | undefined): string | undefined {
  if (!profile?.baseUrl) return undefined;
  try {
    return ResolvedSettings.check({}, {}).withProfile(profile).endpoints().api;
  } catch {
    return undefined;
  }
}

/**
 * Whether a refresher could have something to send: the profile has a stored URL and, when its
 * tokens are in the file, an access token that has not expired. Tokens in the OS credential
 * store are not read here (completion does not wait for it): the refresher finds out.
 */
export function refreshMayWork(profile: Profile | undefined, now: number): boolean {
  if (storedApiTemplate(profile) === undefined) return false;
  return secretsLocation(profile) === 'keychain' || usableToken(profile?.tokens, now) !== undefined;
}

function usableToken(tokens: Profile['tokens'], now: number): string | undefined {
  if (!tokens?.accessToken) return undefined;
  if (tokens.expiresAt !== null && tokens.expiresAt <= now) return undefined;
  return tokens.accessToken;
}

/** The stored access token while it is valid; it is never refreshed here (no token is written). */
async function storedToken(
  store: ProfileStore,
  name: string,
  profile: Profile,
  io: RefreshIo,
): Promise<string | undefined> {
  if (secretsLocation(profile) !== 'keychain') return usableToken(profile.tokens, io.now());
  const { Keychain } = await import('../../../store/keychain.js');
  const secrets = await new Keychain(store.file, io.keychainTimeoutMs).getInChildProcess(name);
  return usableToken(secrets?.tokens, io.now());
}

/**
 * The work of `dasvc __complete-refresh <profile> <scope>`, which completion starts detached when
 * the cache lacks a scope or is stale: asks `rpc.discover` of that scope, then of the profile's
 * other scopes whose cache is missing or stale, at the profile's stored API URL with its stored
 * access token, and caches each answer. One refresher per profile at a time (a lock in the cache
 * folder; a second one ends at once). Never prompts, never refreshes a token: what it cannot
 * have is left for a later TAB.
 */
export async function refreshMethods(name: string, scope: string, io: RefreshIo): Promise<void> {
  const store = new ProfileStore(configFile(io.env));
  const profile = store.read().profiles?.[name];
  const template = storedApiTemplate(profile);
  if (profile === undefined || template === undefined) return;
  const folder = cacheFolder(io.env);
  makeCacheFolder(folder);
  const scopes = new Set([scope, ...(profile.scope ?? '').split(/\s+/).filter(Boolean)]);
  await withFileLock(
    refreshLock(folder, name),
    async () => {
      const token = await storedToken(store, name, profile, io);
      if (token === undefined) return;
      for (const each of scopes) {
        let url: string;
        try {
          url = apiUrlFor(template, each);
        } catch {
          continue;
        }
        if (isFresh(readMethodCache(folder, name).scopes[each], url, io.now())) continue;
        const request = buildCall('rpc.discover', undefined, 1);
        let body: unknown;
        try {
          const answer = processApiResponse(
            await io.send(buildApiRequest(url, token, request)),
            each,
            request,
          );
          body = answer.kind === 'json' ? answer.body : undefined;
        } catch {
          continue; // refused or unreachable: asked again at a later TAB
        }
        // An error answer (no rpc.discover there) is cached as no methods, like an empty list.
        if (!isObject(body) || !('result' in body || 'error' in body)) continue;
        storeScope(folder, name, each, {
          url,
          fetchedAt: io.now(),
          methods: methodsOf(body.result),
        });
      }
    },
    { waitMs: 0, staleMs: REFRESH_LOCK_STALE_MS },
  );
}

/**
 * `dasvc __complete-refresh <profile> <scope>` (hidden; started detached by `__complete`, with no
 * terminal): refills the profile's method cache, and ends within its bound whatever it waits on.
 */
export async function refreshInBackground(args: readonly string[], env: Env): Promise<void> {
  const [profile, scope] = args;
  if (profile === undefined || scope === undefined) return;
  setTimeout(() => process.exit(0), REFRESH_BOUND_MS).unref();
  try {
    const { createHttpClient } = await import('../../../http/http-client.js');
    await refreshMethods(profile, scope, {
      env,
      now: Date.now,
      send: createHttpClient({ env, timeoutMs: REFRESH_REQUEST_MS, shortLived: true }),
      keychainTimeoutMs: KEYCHAIN_TIMEOUT_MS,
    });
  } catch {
    // Nobody is there to read it: the next TAB tries again.
  }
}
