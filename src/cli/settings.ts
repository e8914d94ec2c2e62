import { UsageError } from '../errors.js';
import {
  checkEndpoint,
  defaultEndpoints,
  normalizeBaseUrl,
  parsePlacement,
  type Endpoints,
  type ParamsPlacement,
} from '../oauth/endpoints.js';
import type { ClientCredentials } from '../oauth/token-request.js';
import type { Profile } from '../store/profile-store.js';

/** One setting of SPEC §2: the flag and the env var that supply it. */
export interface SettingSpec {
  key: string;
  flag: string;
  env: string;
  label: string;
  secret?: boolean;
}

/** The settings table of SPEC §2. */
export const SETTINGS = {
  baseUrl: { key: 'baseUrl', flag: '--base-url', env: 'DASVC_BASE_URL', label: 'base URL' },
  clientId: { key: 'clientId', flag: '--client-id', env: 'DASVC_CLIENT_ID', label: 'client id' },
  clientSecret: {
    key: 'clientSecret',
    flag: '--client-secret',
    env: 'DASVC_CLIENT_SECRET',
    label: 'client secret',
    secret: true,
  },
  scope: { key: 'scope', flag: '--scope', env: 'DASVC_SCOPE', label: 'scope' },
  token: { key: 'token', flag: '--token', env: 'DASVC_TOKEN', label: 'access token', secret: true },
  params: { key: 'params', flag: '--params', env: 'DASVC_PARAMS', label: 'parameter placement' },
  authorizeUrl: {
    key: 'authorizeUrl',
    flag: '--authorize-url',
    env: 'DASVC_AUTHORIZE_URL',
    label: 'authorization endpoint',
  },
  tokenUrl: {
    key: 'tokenUrl',
    flag: '--token-url',
    env: 'DASVC_TOKEN_URL',
    label: 'token endpoint',
  },
  refreshUrl: {
    key: 'refreshUrl',
    flag: '--refresh-url',
    env: 'DASVC_REFRESH_URL',
    label: 'refresh endpoint',
  },
  revokeUrl: {
    key: 'revokeUrl',
    flag: '--revoke-url',
    env: 'DASVC_REVOKE_URL',
    label: 'revoke endpoint',
  },
  apiUrl: { key: 'apiUrl', flag: '--api-url', env: 'DASVC_API_URL', label: 'API URL template' },
} satisfies Record<string, SettingSpec>;

/** Where a value came from, for `profile show` and messages. */
export type SettingSource = 'flag' | 'env' | 'profile' | 'prompt';

/** A command's options: flag values keyed as commander names them (camelCase). */
export type FlagValues = object;

/** Asks a question on the terminal; absent when not interactive. */
export interface Prompter {
  input(
    message: string,
    options?: {
      secret?: boolean;
      default?: string;
      /** True for an acceptable answer, else why not: said under the question, which is asked again. */
      validate?: (value: string) => true | string;
    },
  ): Promise<string>;
  select<T extends string>(message: string, choices: readonly T[], defaultValue?: T): Promise<T>;
}

/** Looks a setting up: flag > env > profile (SPEC §2). Empty strings count as unset. */
export function pickSetting(
  spec: SettingSpec,
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
): { value: string; source: SettingSource } | undefined {
  const flag = (flags as Record<string, unknown>)[spec.key];
  if (typeof flag === 'string' && flag !== '') return { value: flag, source: 'flag' };
  const fromEnv = env[spec.env];
  if (fromEnv) return { value: fromEnv, source: 'env' };
  const stored = (profile as Record<string, unknown> | undefined)?.[spec.key];
  if (typeof stored === 'string' && stored !== '') return { value: stored, source: 'profile' };
  return undefined;
}

/** The usage error of SPEC §2 for a missing setting: names the flag and the env var. */
function missingSetting(spec: SettingSpec): UsageError {
  return new UsageError(`missing ${spec.label}: pass ${spec.flag} or set ${spec.env}`, {
    code: 'missing_setting',
  });
}

/** flag > env > profile > prompt (interactive only) > UsageError (SPEC §2). */
export async function requireSetting(
  spec: SettingSpec,
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
  prompter: Prompter | undefined,
): Promise<string> {
  const found = pickSetting(spec, flags, env, profile);
  if (found) return found.value;
  if (prompter) {
    const answer = (
      await prompter.input(`${spec.label[0]!.toUpperCase()}${spec.label.slice(1)}:`, {
        secret: spec.secret,
      })
    ).trim();
    if (answer !== '') return answer;
  }
  throw missingSetting(spec);
}

/** Same as requireSetting without a prompt, for code paths that must not block. */
function requireSettingNow(
  spec: SettingSpec,
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
): string {
  const found = pickSetting(spec, flags, env, profile);
  if (found) return found.value;
  throw missingSetting(spec);
}

/** Parameter placement: flag > env > profile > `query` (SERVICE.md §4 default). */
export function resolvePlacement(
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
): ParamsPlacement {
  const found = pickSetting(SETTINGS.params, flags, env, profile);
  return found
    ? parsePlacement(found.value, found.source === 'env' ? 'DASVC_PARAMS' : '--params')
    : 'query';
}

const ENDPOINT_SPECS: [keyof Endpoints, SettingSpec][] = [
  ['authorize', SETTINGS.authorizeUrl],
  ['token', SETTINGS.tokenUrl],
  ['refresh', SETTINGS.refreshUrl],
  ['revoke', SETTINGS.revokeUrl],
  ['api', SETTINGS.apiUrl],
];

/**
 * Endpoint URLs: flag > env > the profile's stored URL > default from the base URL (SERVICE.md §4).
 * Stored URLs belong to the stored base URL, so they are ignored when another base URL is given.
 */
export function resolveEndpoints(
  baseUrl: string | undefined,
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
): Partial<Endpoints> {
  const defaults = baseUrl === undefined ? undefined : defaultEndpoints(baseUrl);
  const sameBase =
    baseUrl !== undefined &&
    profile?.baseUrl !== undefined &&
    normalizeBaseUrl(profile.baseUrl) === normalizeBaseUrl(baseUrl);
  const stored = baseUrl === undefined || sameBase ? (profile?.endpoints ?? {}) : {};
  const out: Partial<Endpoints> = {};
  for (const [name, spec] of ENDPOINT_SPECS) {
    const explicit = pickSetting(spec, flags, env, undefined)?.value;
    const value = explicit ?? stored[name] ?? defaults?.[name];
    if (value !== undefined) out[name] = checkEndpoint(name, value);
  }
  return out;
}

/** The base URL when one is needed to derive a missing endpoint; else optional. */
export function endpointOrMissing(endpoints: Partial<Endpoints>, name: keyof Endpoints): string {
  const url = endpoints[name];
  if (url !== undefined) return url;
  const spec = ENDPOINT_SPECS.find(([n]) => n === name)![1];
  throw new UsageError(
    `missing base URL: pass --base-url or set DASVC_BASE_URL (or ${spec.flag} / ${spec.env})`,
    {
      code: 'missing_setting',
    },
  );
}

/** Client credentials resolved flag > env > profile, or a UsageError naming what is missing. */
export function resolveClient(
  flags: FlagValues,
  env: NodeJS.ProcessEnv,
  profile: Profile | undefined,
): ClientCredentials {
  return {
    clientId: requireSettingNow(SETTINGS.clientId, flags, env, profile),
    clientSecret: requireSettingNow(SETTINGS.clientSecret, flags, env, profile),
  };
}
