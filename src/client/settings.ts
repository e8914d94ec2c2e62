import { UsageError } from '../errors.js';
import { checkEndpoint, normalizeBaseUrl, type Endpoints } from '../oauth/endpoints.js';
import { normalizeScope } from '../oauth/authorization-url.js';
import { checkProfileName } from '../store/store-shape.js';
import { kindOf, shown } from '../util/printable.js';

/**
 * One setting of SPEC §2: the option (camelCase, as the library takes it and commander names the
 * flag's value), the flag, the variable, and how a value is checked. `check` returns the value as
 * used (normalised) or a problem sentence; the message around it is made once, in `badSetting`.
 */
export interface SettingSpec {
  key: string;
  flag: string;
  env: string;
  label: string;
  secret?: boolean;
  /** An empty value given is refused rather than read as unset (`--profile ''`). */
  emptyRefused?: boolean;
  check?: (value: string) => string | { problem: string };
}

const url = (name: keyof Endpoints) => (value: string) => {
  try {
    return checkEndpoint(name, value);
  } catch (error) {
    // checkEndpoint names the flag itself; keep only the problem for the one message format.
    return { problem: (error as Error).message.replace(/^--\S+ \/ \S+ /, '') };
  }
};

/** The settings table of SPEC §2: every setting once. */
export const SETTINGS = {
  baseUrl: {
    key: 'baseUrl',
    flag: '--base-url',
    env: 'DASVC_BASE_URL',
    label: 'base URL',
    check: (value) => {
      try {
        return normalizeBaseUrl(value);
      } catch (error) {
        return { problem: (error as Error).message.replace(/^base URL /, '') };
      }
    },
  },
  clientId: { key: 'clientId', flag: '--client-id', env: 'DASVC_CLIENT_ID', label: 'client id' },
  clientSecret: {
    key: 'clientSecret',
    flag: '--client-secret',
    env: 'DASVC_CLIENT_SECRET',
    label: 'client secret',
    secret: true,
  },
  scope: {
    key: 'scope',
    flag: '--scope',
    env: 'DASVC_SCOPE',
    label: 'scope',
    check: (value) => normalizeScope(value) || { problem: 'is empty' },
  },
  profile: {
    key: 'profile',
    flag: '--profile',
    env: 'DASVC_PROFILE',
    label: 'profile',
    emptyRefused: true,
    check: (value) => {
      try {
        return checkProfileName(value);
      } catch (error) {
        return { problem: (error as Error).message.replace(/^--profile: /, '') };
      }
    },
  },
  token: {
    key: 'token',
    flag: '--token',
    env: 'DASVC_TOKEN',
    label: 'access token',
    secret: true,
    // `--token "$EMPTY"` is a script's mistake, not a wish for the stored token; a value that a
    // header cannot carry would otherwise fail as a network error. Never echoed: it is a secret.
    emptyRefused: true,
    check: (value) =>
      value === ''
        ? { problem: 'is empty' }
        : /^[\x21-\x7e]+$/.test(value)
          ? value
          : { problem: 'has a space, a control or a non-ASCII character (not a bearer token)' },
  },
  params: {
    key: 'params',
    flag: '--params',
    env: 'DASVC_PARAMS',
    label: 'parameter placement',
    check: (value) =>
      value === 'query' || value === 'body'
        ? value
        : { problem: `must be "query" or "body", got ${JSON.stringify(value)}` },
  },
  authorizeUrl: {
    key: 'authorizeUrl',
    flag: '--authorize-url',
    env: 'DASVC_AUTHORIZE_URL',
    label: 'authorization endpoint',
    check: url('authorize'),
  },
  tokenUrl: {
    key: 'tokenUrl',
    flag: '--token-url',
    env: 'DASVC_TOKEN_URL',
    label: 'token endpoint',
    check: url('token'),
  },
  refreshUrl: {
    key: 'refreshUrl',
    flag: '--refresh-url',
    env: 'DASVC_REFRESH_URL',
    label: 'refresh endpoint',
    check: url('refresh'),
  },
  revokeUrl: {
    key: 'revokeUrl',
    flag: '--revoke-url',
    env: 'DASVC_REVOKE_URL',
    label: 'revoke endpoint',
    check: url('revoke'),
  },
  apiUrl: {
    key: 'apiUrl',
    flag: '--api-url',
    env: 'DASVC_API_URL',
    label: 'API URL template',
    check: url('api'),
  },
} satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;

/** The settings as options carry them: CLI flags (camelCase) and the library's options alike. */
export interface SettingOptions {
  baseUrl?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  revokeUrl?: string;
  /** API URL template containing `{scope}`. */
  apiUrl?: string;
  /** Where the OAuth parameters go: `query` (SERVICE.md §4, default) or `body`. */
  params?: string;
  /** An access token to use as is: no store, no refresh. */
  token?: string;
  /** The profile of the store (default: DASVC_PROFILE, the active profile, `default`). */
  profile?: string;
}

/** The endpoint settings, by the name Endpoints gives them. */
export const ENDPOINT_SETTINGS: [keyof Endpoints, SettingSpec][] = [
  ['authorize', SETTINGS.authorizeUrl],
  ['token', SETTINGS.tokenUrl],
  ['refresh', SETTINGS.refreshUrl],
  ['revoke', SETTINGS.revokeUrl],
  ['api', SETTINGS.apiUrl],
];

/**
 * The one message of a bad value (SPEC §1, §2): the same in every command and in the library, and
 * naming the flag, the variable and the library option that can carry it.
 */
export function badSetting(spec: SettingSpec, problem: string): UsageError {
  return new UsageError(
    `${spec.label} (${spec.flag}, ${spec.env}, option ${spec.key}) ${problem}`,
    { code: 'bad_setting', facts: { setting: spec.key } },
  );
}

/** The one message of a missing required setting (SPEC §2): names the flag and the variable. */
export function missingSetting(spec: SettingSpec, alternative?: SettingSpec): UsageError {
  // The library's option too (SPEC §1: a settings error names the option).
  const or = alternative
    ? ` (or ${alternative.flag} / ${alternative.env}, option ${alternative.key})`
    : '';
  const message = `missing ${spec.label}: pass ${spec.flag} or set ${spec.env} (option ${spec.key})${or}`;
  return new UsageError(message, {
    code: 'missing_setting',
    facts: { setting: spec.key },
  });
}

/**
 * A value checked against its setting: the normalised value, or the usage error naming it. A
 * library caller's option may be anything: what is no string is shown as options are, a secret's
 * by its type alone (a token given as a number is still not shown).
 */
export function checkSetting(spec: SettingSpec, value: unknown): string {
  if (typeof value !== 'string') {
    throw badSetting(spec, `must be a string, got ${spec.secret ? kindOf(value) : shown(value)}`);
  }
  const checked = spec.check ? spec.check(value) : value;
  if (typeof checked === 'string') return checked;
  throw badSetting(spec, checked.problem);
}
