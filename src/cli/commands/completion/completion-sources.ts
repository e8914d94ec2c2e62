import { join, resolve } from 'node:path';
import { defaultFixturesDir } from '../../../mock/fixture-format/default-dir.js';
import { apiUrlFor } from '../../../oauth/endpoints.js';
import type { DiscoveredMethod } from '../../../rpc/discover.js';
import { ResolvedSettings } from '../../../client/resolve-settings.js';
import { configFile } from '../../../store/config-path.js';
import { activeProfileName, ProfileStore, type StoreData } from '../../../store/profile-store.js';
import type { Profile } from '../../../schemas/config-file.js';
import type { Env } from '../../../util/env.js';
import { readRegularFile } from '../../../util/regular-file.js';
import type { CompletedLine, CompletionSources } from './complete-words.js';
import { cacheFolder, isFresh, readMethodCache, refreshUnderWay } from './method-cache.js';
import { isPlausibleName } from './plausible-words.js';
import { refreshMayWork, storedApiTemplate } from './refresh-methods.js';

export interface SourceIo {
  env: Env;
  now: () => number;
  /** Starts a refresher of the profile's cache, beginning with `scope`, and does not wait for it. */
  refill: (profile: string, scope: string) => void;
}

/**
 * Completion's view of the user's setup (SPEC §3): profile names and scopes from the config file,
 * methods and their params from the profile's cache of `rpc.discover`. It reads local files only:
 * a missing or stale cache starts a refresher for the next TAB, and nothing waits for it. It never
 * prompts, never reads a token, never fails: what cannot be had is left out.
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
  /** The scope's cached methods, when the line would call the URL they came from. */
  const methodsOf = (scope: string, line: CompletedLine): DiscoveredMethod[] => {
    const chosen = profileOf(line.options.get('--profile'));
    if (!chosen) return [];
    const [name, profile] = chosen;
    let url: string;
    try {
      url = apiUrlFor(storedApiTemplate(profile) ?? '', scope);
      // Names of the profile's installation are no use for a line that calls another one.
      if (apiUrlFor(lineApiTemplate(line, io.env, profile) ?? '', scope) !== url) return [];
    } catch {
      return [];
    }
    const folder = cacheFolder(io.env);
    const entry = readMethodCache(folder, name).scopes[scope];
    const now = io.now();
    if (
      !isFresh(entry, url, now) &&
      refreshMayWork(profile, now) &&
      !refreshUnderWay(folder, name, now)
    )
      io.refill(name, scope);
    return entry?.url === url ? entry.methods : [];
  };
  return {
    profiles: () => Object.keys(read().profiles ?? {}).filter(isPlausibleName),
    scopes: (flag) => (profileOf(flag)?.[1]?.scope ?? '').split(/\s+/).filter(isPlausibleName),
    users: (fixtures) => fixtureUsers(fixtures, io.env),
    methods: (scope, line) => methodsOf(scope, line).map((method) => method.name),
    params: (scope, method, line) => {
      const found = methodsOf(scope, line).find((each) => each.name === method);
      return found && !found.byPosition ? found.params : [];
    },
  };
}

/** The user names of a fixtures folder's users.json (relative to where the line runs); [] when unreadable. */
function fixtureUsers(fixtures: string | undefined, env: Env): string[] {
  const dir = fixtures ? resolve(env.PWD ?? process.cwd(), fixtures) : defaultFixturesDir();
  try {
    const users: unknown = JSON.parse(readRegularFile(join(dir, 'users.json')));
    if (typeof users !== 'object' || users === null || Array.isArray(users)) return [];
    return Object.keys(users).filter((name) => name !== '$schema' && isPlausibleName(name));
  } catch {
    return [];
  }
}

/** The API URL template as the rpc command would use it: flag > env > profile > from the base URL. */
function lineApiTemplate(
  line: CompletedLine,
  env: Env,
  profile: Profile | undefined,
): string | undefined {
  const flags = {
    baseUrl: line.options.get('--base-url'),
    apiUrl: line.options.get('--api-url'),
  };
  // Completion never fails: a bad value simply gives no template.
  try {
    return ResolvedSettings.check(flags, env).withProfile(profile).endpoints().api;
  } catch {
    return undefined;
  }
}
