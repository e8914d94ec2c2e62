import { UsageError } from '../errors.js';
import { shown } from '../util/printable.js';
import { REDACTED, redactUrl } from '../util/redact.js';

/** Where the OAuth placement of parameters goes: the query string (SERVICE.md §4) or a form body (RFC 6749). */
export type ParamsPlacement = 'query' | 'body';

/** The five endpoint URLs a profile talks to; `api` is a template containing `{scope}`. */
export interface Endpoints {
  authorize: string;
  token: string;
  refresh: string;
  revoke: string;
  api: string;
}

/**
 * A user name or password in a URL would be sent as HTTP Basic authentication beside the client's
 * own (its secret, or the bearer token), and shown wherever the URL is.
 */
const NO_USERINFO = 'must not carry a user name or password';

/**
 * A URL as a message shows it: parsed, as the parser writes it (`http:u:pw@h` and ` http://u:pw@h`
 * are URLs too), with redactUrl's masks; text that is no URL, from its first `:` after `//` to its
 * last `@`.
 */
function shownUrl(text: string, parsed: URL | undefined): string {
  if (parsed !== undefined) return redactUrl(parsed.href);
  return JSON.stringify(text.replace(/^([^@]*?\/\/[^/@:]*):[^@]*@/, `$1:${REDACTED}@`));
}

/** Base URL without trailing slashes ("trailing slash tolerated", SPEC §2); rejects non-http(s). */
export function normalizeBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw new UsageError(`base URL is not a URL: ${shownUrl(baseUrl, undefined)}`, {
      code: 'bad_url',
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`base URL must be http or https: ${shownUrl(trimmed, parsed)}`, {
      code: 'bad_url',
    });
  }
  if (parsed.username !== '' || parsed.password !== '')
    throw new UsageError(`base URL ${NO_USERINFO}: ${shownUrl(trimmed, parsed)}`, {
      code: 'bad_url',
    });
  // SERVICE.md appends paths to it: a query or fragment would swallow them (`/?x=1/webservice/…`).
  if (parsed.search !== '' || parsed.hash !== '' || /[?#]/.test(trimmed)) {
    throw new UsageError(
      `base URL must not carry a query or fragment (the endpoint paths go after it): ${trimmed}`,
      { code: 'bad_url' },
    );
  }
  return trimmed;
}

/** Endpoint URLs as SERVICE.md §4.1–4.5 derives them from `{base_url}`. */
export function defaultEndpoints(baseUrl: string): Endpoints {
  const base = normalizeBaseUrl(baseUrl);
  return {
    authorize: `${base}/webservice/authorize/`,
    token: `${base}/webservice/authorize`,
    refresh: `${base}/webservice/authorize/refresh_token`,
    revoke: `${base}/webservice/authorize/revoke`,
    api: `${base}/webservice/json/{scope}`,
  };
}

/** Checks an endpoint override is an absolute http(s) URL; the API one must carry `{scope}` (SPEC §2). */
export function checkEndpoint(name: keyof Endpoints, url: string): string {
  // The value may come from the flag, the variable or the profile: name the first two (SPEC §2).
  const setting = `--${name}-url / DASVC_${name.toUpperCase()}_URL`;
  const bad = (problem: string) => new UsageError(`${setting} ${problem}`, { code: 'bad_url' });
  let parsed: URL;
  try {
    parsed = new URL(url.replace('{scope}', 'scope'));
  } catch {
    throw bad(`is not a URL: ${shownUrl(url, undefined)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw bad(`must be http or https: ${shownUrl(url, parsed)}`);
  }
  if (parsed.username !== '' || parsed.password !== '')
    throw bad(`${NO_USERINFO}: ${shownUrl(url, parsed)}`);
  if (name === 'api' && !url.includes('{scope}')) {
    throw bad('must contain {scope}, e.g. https://host/webservice/json/{scope}');
  }
  return url;
}

/** The API URL of one scope (SERVICE.md §4.5: the scope name is the last path segment). */
export function apiUrlFor(template: string, scope: string): string {
  checkScopeId(scope);
  return template.split('{scope}').join(scope);
}

/** That `scope` is one instance ID, the last path segment of an API URL; else a usage error. */
export function checkScopeId(scope: unknown): asserts scope is string {
  // `.` and `..` are path segments a URL removes: the call would go to another path.
  // A JavaScript caller's `undefined` or `['crm']` would pass the test as the text it becomes.
  if (
    typeof scope !== 'string' ||
    !/^[A-Za-z0-9._~-]+$/.test(scope) ||
    scope === '.' ||
    scope === '..'
  ) {
    throw new UsageError(
      `scope must be one instance ID (letters, digits, . _ ~ -; not . nor ..): ${shown(scope)}`,
      { code: 'bad_scope' },
    );
  }
}

/** Reads `query|body` (SPEC §2 `--params`). */
export function parsePlacement(value: string, source = '--params'): ParamsPlacement {
  if (value === 'query' || value === 'body') return value;
  throw new UsageError(`${source} must be "query" or "body", got ${JSON.stringify(value)}`, {
    code: 'bad_params_placement',
  });
}
