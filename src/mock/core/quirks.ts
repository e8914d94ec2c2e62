import { UsageError } from '../../errors.js';
import { QUIRK_MEMBERS, type Quirks } from '../../schemas/quirks.js';
import { validateQuirks } from '../../schemas/quirks.validator.js';
import { unescapeSegment } from '../../util/json-pointer.js';
import { checkSchema } from '../../util/schema-check.js';
import type { MockResponse } from './types.js';
import { readRegularFile } from '../../util/regular-file.js';
import { fileProblem } from '../../util/file-problem.js';

/** SERVICE.md 4.2: where the token endpoint is when no quirk moves it. */
const DEFAULT_TOKEN_PATH = '/webservice/authorize';

/**
 * Checks a quirks value against its schema: one JSON object of known members with allowed values.
 * Throws a UsageError naming the member and the problem (`source: member: problem`), or the
 * unknown member; `source` names the file or request.
 */
export function parseQuirks(value: unknown, source = 'quirks'): Quirks {
  const checked = checkSchema(validateQuirks, value);
  if (checked.problem === undefined) return { ...checked.value };
  const { pointer, problem } = checked.problem;
  // The members are one level deep: the pointer names one by its name.
  const member = unescapeSegment(pointer.slice(1));
  throw new UsageError(`${source}: ${member === '' ? '' : `${member}: `}${problem}`, {
    code: 'bad_quirks',
    facts: { members: [...QUIRK_MEMBERS] },
  });
}

/** Reads and checks a quirks file (`dasvc mock --quirks FILE`); every problem is a UsageError naming it. */
function loadQuirksFile(file: string): Quirks {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    throw new UsageError(`cannot read the quirks file ${file}: ${fileProblem(error)}`, {
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

/**
 * Which OAuth endpoint a path names once tokenPath moved the token endpoint (SPEC §7): the new
 * path, or the old one in either spelling (the slash one serves token requests too), where token
 * requests are gone.
 */
export function movedTokenEndpoint(path: string, quirks: Quirks): 'token' | 'gone' | undefined {
  const moved = quirks.tokenPath;
  if (moved === undefined || moved === DEFAULT_TOKEN_PATH) return undefined;
  if (path === moved) return 'token';
  return path === DEFAULT_TOKEN_PATH || path === `${DEFAULT_TOKEN_PATH}/` ? 'gone' : undefined;
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
