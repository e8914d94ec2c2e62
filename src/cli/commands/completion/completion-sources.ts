import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SendFn } from '../../../http/types.js';
import { apiUrlFor } from '../../../oauth/endpoints.js';
import { methodNamesOf } from '../../../rpc/discover.js';
import { buildApiRequest, buildCall, processApiResponse } from '../../../rpc/jsonrpc.js';
import { configDir } from '../../../store/config-path.js';
import {
  activeProfileName,
  ProfileStore,
  type Profile,
  type StoreData,
} from '../../../store/profile-store.js';
import { configFile } from '../../../store/config-path.js';
import { secretsLocation } from '../../../store/profile-secrets.js';
import { isObject } from '../../../util/guards.js';
import { ResolvedSettings } from '../../../client/resolve-settings.js';
import type { CompletedLine, CompletionSources } from './complete-words.js';
import { makeFolders } from '../../../util/make-folders.js';

/** How long a scope's method names are used before `rpc.discover` is asked again. */
export const METHODS_TTL_MS = 60 * 60 * 1000;

/** The cache file beside the config file: profile → scope → the API URL asked, the names, when. */
type MethodCache = Record<string, Record<string, { url: string; methods: string[]; at: number }>>;

function cacheFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'completion-cache.json');
}

function readCache(env: NodeJS.ProcessEnv): MethodCache {
  try {
    const data: unknown = JSON.parse(readFileSync(cacheFile(env), 'utf8'));
    return isObject(data) ? (data as MethodCache) : {};
  } catch {
    return {};
  }
}

/** Written whole and renamed into place (a second completion never reads half a file), mode 0600. */
function writeCache(env: NodeJS.ProcessEnv, cache: MethodCache): void {
  const file = cacheFile(env);
  makeFolders(configDir(env), 0o700);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(cache), { mode: 0o600 });
  renameSync(temp, file);
}

export interface SourceIo {
  env: NodeJS.ProcessEnv;
  now: () => number;
  /** How long the OS credential store may take to hand over a token. */
  keychainTimeoutMs: number;
  /** The transport, already limited to the time completion has left. */
  send: SendFn;
}

/**
 * Completion's view of the user's setup (SPEC §3): profile names and scopes from the config file,
 * method names from the instance's `rpc.discover`, cached per profile for an hour. It never
 * prompts, never refreshes or writes tokens, and never fails: what cannot be had is left out.
 */
export function storeSources(io: SourceIo): CompletionSources {
  const store = new ProfileStore(configFile(io.env));
  const read = (): StoreData => {
    try {
      return store.read();
    } catch {
      return {};
    }
  };
  const profileOf = (flag: string | undefined): [string, Profile | undefined] | undefined => {
    const data = read();
    try {
      const name = activeProfileName(flag, io.env, data);
      return [name, data.profiles?.[name]];
    } catch {
      return undefined;
    }
  };
  return {
    profiles: () => Object.keys(read().profiles ?? {}),
    scopes: (flag) => profileOf(flag)?.[1]?.scope?.split(/\s+/).filter(Boolean) ?? [],
    methods: async (scope, line) => {
      const chosen = profileOf(line.options.get('--profile'));
      if (!chosen) return [];
      const [name, profile] = chosen;
      const settings = lineSettings(line, io.env, profile);
      const template = settings?.endpoints().api;
      if (template === undefined) return [];
      let url: string;
      try {
        url = apiUrlFor(template, scope);
      } catch {
        return [];
      }
      const cache = readCache(io.env);
      const cached = cache[name]?.[scope];
      const known = cached?.url === url ? cached.methods : [];
      if (cached?.url === url && io.now() - cached.at < METHODS_TTL_MS) return known;
      let token: string | undefined = line.options.get('--token') || io.env.DASVC_TOKEN;
      try {
        // The stored token goes only to the installation that issued it (credential-binding.ts).
        if (!token && settings!.foreignUrl() === undefined)
          token = await storedToken(io, name, profile, store);
      } catch {
        return known;
      }
      if (token === undefined) return known;
      try {
        const request = buildCall('rpc.discover', undefined, 1);
        const answer = processApiResponse(
          await io.send(buildApiRequest(url, token, request)),
          scope,
          request,
        );
        const body = answer.kind === 'json' ? answer.body : undefined;
        const methods = methodNamesOf(isObject(body) ? body.result : undefined);
        if (methods.length === 0) return known;
        cache[name] = { ...cache[name], [scope]: { url, methods, at: io.now() } };
        writeCache(io.env, cache);
        return methods;
      } catch {
        return known;
      }
    },
  };
}

/** The settings as the rpc command would resolve them: flag > env > profile > from the base URL. */
function lineSettings(
  line: CompletedLine,
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
): ResolvedSettings | undefined {
  const flags = {
    baseUrl: line.options.get('--base-url'),
    apiUrl: line.options.get('--api-url'),
  };
  // Completion never fails: a bad value simply gives no settings.
  try {
    const settings = ResolvedSettings.check(flags, env).withProfile(profile);
    // Stored values are checked when read: read them here, where a bad one is quietly nothing.
    settings.endpoints();
    settings.foreignUrl();
    return settings;
  } catch {
    return undefined;
  }
}

/**
 * The stored access token while it needs nothing done to it (valid, no refresh). From the OS
 * credential store (SPEC §9) it is read by a child process within the time completion has left,
 * so that a slow, silent or locked store costs at most that.
 */
async function storedToken(
  io: SourceIo,
  name: string,
  profile: Profile | undefined,
  store: ProfileStore,
): Promise<string | undefined> {
  let tokens: Profile['tokens'];
  if (secretsLocation(profile) === 'keychain') {
    const { Keychain } = await import('../../../store/keychain.js');
    tokens = (await new Keychain(store.file, io.keychainTimeoutMs).getInChildProcess(name))?.tokens;
  } else tokens = profile?.tokens;
  if (!tokens?.accessToken) return undefined;
  if (tokens.expiresAt !== null && tokens.expiresAt <= io.now()) return undefined;
  return tokens.accessToken;
}
