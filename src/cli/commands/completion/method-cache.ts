import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoveredMethod } from '../../../rpc/discover.js';
import { configDir } from '../../../store/config-path.js';
import { isObject } from '../../../util/guards.js';
import { readRegularFile } from '../../../util/regular-file.js';
import type { Env } from '../../../util/env.js';
import { writeWhole } from '../../../util/write-whole.js';
import { isPlausibleName, isPlausibleParamName } from './plausible-words.js';

/** How long a scope's methods are offered before a TAB has them fetched again. */
export const METHODS_TTL_MS = 60 * 60 * 1000;

/** A refresher whose lock was not touched for this long is gone (file-lock.ts takes it over). */
export const REFRESH_LOCK_STALE_MS = 5000;

/** More than a person types after `dasvc rpc <scope> `; a larger answer is cut here. */
const MAX_METHODS = 5000;
const MAX_PARAMS = 200;

/** What `rpc.discover` said of one scope, from which URL and when. */
export interface CachedScope {
  url: string;
  fetchedAt: number;
  methods: DiscoveredMethod[];
}

/** One profile's cache file: scope → what its `rpc.discover` said. */
export interface MethodCache {
  scopes: Record<string, CachedScope>;
}

/** The folder of the caches, beside the config file: one file (and one lock) per profile. */
export function cacheFolder(env: Env): string {
  return join(configDir(env), 'completion-cache');
}

function cacheFile(folder: string, profile: string): string {
  return join(folder, `${profile}.json`);
}

/** The lock a refresher of `profile` holds (a directory, file-lock.ts). */
export function refreshLock(folder: string, profile: string): string {
  return join(folder, `${profile}.lock`);
}

/** Whether a refresher of the profile holds its lock now (it touches the lock every second). */
export function refreshUnderWay(folder: string, profile: string, now: number): boolean {
  try {
    return now - statSync(refreshLock(folder, profile)).mtimeMs < REFRESH_LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/** Whether `entry` holds what `url` answered within the time it is used for. */
export function isFresh(entry: CachedScope | undefined, url: string, now: number): boolean {
  if (entry?.url !== url) return false;
  const age = now - entry.fetchedAt;
  return age >= 0 && age < METHODS_TTL_MS;
}

/**
 * The methods worth keeping: plausible names only, each param name plausible, each method once,
 * at most so many. Applied when written and again when read: the file is the user's to edit.
 */
function keptMethods(methods: unknown): DiscoveredMethod[] {
  if (!Array.isArray(methods)) return [];
  const seen = new Set<string>();
  const kept: DiscoveredMethod[] = [];
  for (const method of methods) {
    if (!isObject(method) || typeof method.name !== 'string' || !isPlausibleName(method.name))
      continue;
    if (seen.has(method.name) || kept.length === MAX_METHODS) continue;
    seen.add(method.name);
    const params = Array.isArray(method.params) ? method.params : [];
    kept.push({
      name: method.name,
      params: params
        .filter((name): name is string => typeof name === 'string' && isPlausibleParamName(name))
        .slice(0, MAX_PARAMS),
      byPosition: method.byPosition === true,
    });
  }
  return kept;
}

/** The profile's cache as on disk; empty when there is none or it is not of this shape. */
export function readMethodCache(folder: string, profile: string): MethodCache {
  let data: unknown;
  try {
    data = JSON.parse(readRegularFile(cacheFile(folder, profile)));
  } catch {
    data = undefined;
  }
  // No prototype: a scope may be called `__proto__` or `constructor`.
  const scopes = Object.create(null) as Record<string, CachedScope>;
  const stored = isObject(data) && isObject(data.scopes) ? data.scopes : {};
  for (const [scope, entry] of Object.entries(stored)) {
    if (!isObject(entry) || typeof entry.url !== 'string' || typeof entry.fetchedAt !== 'number')
      continue;
    scopes[scope] = {
      url: entry.url,
      fetchedAt: entry.fetchedAt,
      methods: keptMethods(entry.methods),
    };
  }
  return { scopes };
}

/**
 * Makes the cache folder (0700) inside the config dir, which must exist: a profile is read from
 * there, and a refresher that outlives its config dir must not make it again.
 */
export function makeCacheFolder(folder: string): void {
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Stores what `url` answered for `scope`: written whole and renamed into place, mode 0600. */
export function storeScope(
  folder: string,
  profile: string,
  scope: string,
  entry: CachedScope,
): void {
  const cache = readMethodCache(folder, profile);
  cache.scopes[scope] = { ...entry, methods: keptMethods(entry.methods) };
  const file = cacheFile(folder, profile);
  writeWhole(file, JSON.stringify(cache));
}
