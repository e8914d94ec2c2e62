import { readFileSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { isObject } from '../../util/guards.js';
import type { MockResponse } from './types.js';
import { shownJson } from '../../util/printable.js';

/**
 * An installation's observed deviations from SPEC §5 (SPEC §7 quirks table). Every member is
 * optional; an absent member means the behaviour of SPEC §5.
 */
export interface Quirks {
  /** How `expires_in` is sent: seconds as a string (§5), as a number, milliseconds, or not at all. */
  expiresIn?: 'string' | 'number' | 'milliseconds' | 'absent';
  /** `false`: a refresh answers with the same refresh token. */
  refreshRotation?: boolean;
  /** `true`: a used refresh token keeps working. */
  oldRefreshTokenAccepted?: boolean;
  /** `true`: a refresh is accepted after the access token expired. */
  refreshAfterExpiry?: boolean;
  /** `"error"`: revoking an unknown token answers 400 `{"error":"invalid_request"}`. */
  revokeUnknownToken?: 'ok' | 'error';
  /** `"text"`: OAuth errors are `text/plain` bodies holding the error code alone. */
  errorBody?: 'rfc6749' | 'text';
  /** `false`: `rpc.discover` answers -32601. */
  rpcDiscover?: boolean;
  /** Path (under the base URL) the token endpoint answers at; the old one answers 404. */
  tokenPath?: string;
}

/** SERVICE.md 4.2: where the token endpoint is when no quirk moves it. */
export const DEFAULT_TOKEN_PATH = '/webservice/authorize';

/** The allowed values of each member, default first (SPEC §7 table); tokenPath is any path. */
export const QUIRK_VALUES = {
  expiresIn: ['string', 'number', 'milliseconds', 'absent'],
  refreshRotation: [true, false],
  oldRefreshTokenAccepted: [false, true],
  refreshAfterExpiry: [false, true],
  revokeUnknownToken: ['ok', 'error'],
  errorBody: ['rfc6749', 'text'],
  rpcDiscover: [true, false],
} as const satisfies Record<Exclude<keyof Quirks, 'tokenPath'>, readonly unknown[]>;

/** Every member name, in the order of the SPEC §7 table. */
export const QUIRK_MEMBERS: readonly (keyof Quirks)[] = [
  'expiresIn',
  'refreshRotation',
  'oldRefreshTokenAccepted',
  'refreshAfterExpiry',
  'revokeUnknownToken',
  'errorBody',
  'rpcDiscover',
  'tokenPath',
];

/** Paths the token endpoint cannot move to: the other endpoints, the API and the control routes. */
function tokenPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'must be a path starting with "/"';
  if (/[?#\s]/.test(path)) return 'must be a path without query, fragment or spaces';
  const taken = [
    '/webservice/authorize/',
    '/webservice/authorize/refresh_token',
    '/webservice/authorize/refresh_token/',
    '/webservice/authorize/revoke',
    '/webservice/authorize/revoke/',
  ];
  if (taken.includes(path)) return 'is the path of another OAuth endpoint';
  if (path.startsWith('/_mock/') || path.startsWith('/webservice/json/')) {
    return 'lies under /_mock/ or /webservice/json/, which the mock keeps for itself';
  }
  return undefined;
}

/**
 * Checks a quirks value (SPEC §7): one JSON object of known members with allowed values. Throws a
 * UsageError naming the first unknown member or bad value; `source` names the file or request.
 */
export function parseQuirks(value: unknown, source = 'quirks'): Quirks {
  const fail = (problem: string) =>
    new UsageError(`${source}: ${problem}`, {
      code: 'bad_quirks',
      detail: { members: [...QUIRK_MEMBERS] },
    });
  if (!isObject(value)) throw fail('must be one JSON object');
  const quirks: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    if (name === 'tokenPath') {
      if (typeof member !== 'string') throw fail('tokenPath must be a string path');
      const problem = tokenPathProblem(member);
      if (problem) throw fail(`tokenPath ${shownJson(member)} ${problem}`);
      quirks[name] = member;
      continue;
    }
    if (!Object.hasOwn(QUIRK_VALUES, name)) throw fail(`unknown member "${name}"`);
    const allowed: readonly unknown[] = QUIRK_VALUES[name as keyof typeof QUIRK_VALUES];
    if (!allowed.includes(member)) {
      throw fail(
        `${name}: unknown value ${shownJson(member)} (allowed: ${allowed.map((v) => JSON.stringify(v)).join(', ')})`,
      );
    }
    quirks[name] = member;
  }
  return quirks as Quirks;
}

/** Reads and checks a quirks file (`dasvc mock --quirks FILE`); every problem is a UsageError naming it. */
export function loadQuirksFile(file: string): Quirks {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the quirks file ${file}: ${(error as Error).message}`, {
      code: 'bad_quirks',
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`quirks file ${file} is not JSON: ${(error as Error).message}`, {
      code: 'bad_quirks',
      cause: error,
    });
  }
  return parseQuirks(value, `quirks file ${file}`);
}

/** The `quirks` option of the mock: an object, or the path of a quirks file. */
export function resolveQuirksOption(option: Quirks | string | undefined): Quirks {
  if (option === undefined) return {};
  if (typeof option === 'string') return loadQuirksFile(option);
  return parseQuirks(option, 'quirks option');
}

/** `expires_in` as the quirk sends it, from the whole seconds of SPEC §5. */
export function quirkExpiresIn(seconds: string, quirks: Quirks): { expires_in?: string | number } {
  switch (quirks.expiresIn) {
    case 'number':
      return { expires_in: Number(seconds) };
    case 'milliseconds':
      return { expires_in: String(Number(seconds) * 1000) };
    case 'absent':
      return {};
    default:
      return { expires_in: seconds };
  }
}

/** Which OAuth endpoint a path names once tokenPath moved the token endpoint (SPEC §7). */
export function movedTokenEndpoint(path: string, quirks: Quirks): 'token' | 'gone' | undefined {
  const moved = quirks.tokenPath;
  if (moved === undefined || moved === DEFAULT_TOKEN_PATH) return undefined;
  if (path === moved) return 'token';
  return path === DEFAULT_TOKEN_PATH ? 'gone' : undefined;
}

/**
 * An OAuth endpoint's error answer as the errorBody quirk sends it: `"text"` turns the RFC 6749
 * JSON `{"error", …}` into a `text/plain` body holding the error code alone (SPEC §7).
 */
export function quirkErrorBody(response: MockResponse, quirks: Quirks): MockResponse {
  if (quirks.errorBody !== 'text' || response.status < 400) return response;
  let error: unknown;
  try {
    error = (JSON.parse(response.body) as { error?: unknown }).error;
  } catch {
    return response;
  }
  if (typeof error !== 'string') return response;
  const headers = { ...response.headers, 'content-type': 'text/plain; charset=utf-8' };
  return { ...response, headers, body: error };
}
