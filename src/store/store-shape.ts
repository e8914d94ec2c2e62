import { UsageError } from '../errors.js';
import { MAX_DATE_MS, MAX_DURATION_SECONDS } from '../util/duration.js';
import {
  isBoolean,
  isNumber,
  isObject,
  isString,
  nullable,
  optional,
  type Check,
} from '../util/guards.js';

/** Profile names: what fits a file key and a shell word (SPEC §2 `--profile`), nothing of Object's own. */
const PROFILE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `name` may name a profile. */
function isValidProfileName(name: string): boolean {
  return PROFILE_NAME.test(name) && !RESERVED_NAMES.has(name);
}

/** Throws the usage error (exit 2) for a profile name that cannot be used; `source` says where it came from. */
export function checkProfileName(name: string, source = '--profile'): string {
  if (!isValidProfileName(name)) {
    throw new UsageError(
      `${source}: ${JSON.stringify(name)} is not a usable profile name (1–64 of A–Z a–z 0–9 . _ -; not __proto__, constructor or prototype)`,
      { code: 'bad_profile_name' },
    );
  }
  return name;
}

/** An epoch ms that a Date can hold and that is not before 1970 (what dasvc writes). */
const isTime: Check = (value) =>
  isNumber(value) && (value as number) >= 0 && (value as number) <= MAX_DATE_MS;
/** Seconds between 0 and 100 years. */
const isSeconds: Check = (value) =>
  isNumber(value) && (value as number) >= 0 && (value as number) <= MAX_DURATION_SECONDS;

const PROFILE_FIELDS: Record<string, Check> = {
  baseUrl: optional(isString),
  clientId: optional(isString),
  clientSecret: optional(isString),
  scope: optional(isString),
  params: optional((value) => value === 'query' || value === 'body'),
  refreshMargin: optional(isSeconds),
  endpoints: optional((value) => isObject(value) && Object.values(value).every(isString)),
  // Where the profile's secrets live (SPEC §9); absent in files written before the OS store.
  secrets: optional((value) => value === 'keychain' || value === 'file'),
};

const TOKEN_FIELDS: Record<string, Check> = {
  accessToken: nullable(isString),
  refreshToken: nullable(isString),
  expiresAt: nullable(isTime),
  obtainedAt: isTime,
  accessRevoked: optional(isBoolean),
  accessEnded: optional((value) => value === 'revoked' || value === 'refused'),
  refreshRefused: optional(isBoolean),
  endedAccess: optional(
    (value) =>
      Array.isArray(value) &&
      value.every(
        (ended) =>
          isObject(ended) &&
          isString(ended.fingerprint) &&
          (ended.how === 'replaced' || ended.how === 'revoked') &&
          isTime(ended.at),
      ),
  ),
};

/**
 * The problem with one field: a number where the field takes numbers (its check accepts 0) can
 * still be out of range; a number anywhere else is of the wrong type.
 */
function wrong(path: string, value: unknown, check: Check): string {
  return typeof value === 'number' && Number.isFinite(value) && check(0)
    ? `"${path}" is out of range (${value})`
    : `"${path}" has the wrong type`;
}

/**
 * Where the config data departs from the shape dasvc writes (SPEC §2: a corrupt config file is a
 * clear error), as a path like `profiles.default.tokens.accessToken`; undefined when it fits.
 * Members dasvc does not know are left alone (they are kept on write).
 */
export function storeShapeProblem(data: unknown): string | undefined {
  if (!isObject(data)) return 'the file does not hold a JSON object';
  if (data.activeProfile !== undefined) {
    if (typeof data.activeProfile !== 'string' || !isValidProfileName(data.activeProfile))
      return '"activeProfile" is not a profile name';
  }
  if (data.profiles === undefined) return undefined;
  if (!isObject(data.profiles)) return '"profiles" is not an object';
  for (const [name, profile] of Object.entries(data.profiles)) {
    const at = `profiles.${name}`;
    if (!isObject(profile)) return `"${at}" is not an object`;
    for (const [field, check] of Object.entries(PROFILE_FIELDS)) {
      if (!check(profile[field])) return wrong(`${at}.${field}`, profile[field], check);
    }
    if (profile.tokens === undefined) continue;
    const problem = tokensShapeProblem(profile.tokens, `${at}.tokens`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Where stored tokens (in the file at `at`, or in the OS credential store) depart from their shape. */
export function tokensShapeProblem(tokens: unknown, at: string): string | undefined {
  if (!isObject(tokens)) return `"${at}" is not an object`;
  for (const [field, check] of Object.entries(TOKEN_FIELDS)) {
    if (!check(tokens[field])) return wrong(`${at}.${field}`, tokens[field], check);
  }
  return undefined;
}
