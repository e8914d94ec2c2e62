import type { MockResponse, RequestNote } from './types.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

const NO_CACHE_CONTROL = 'no-store';
const NO_PRAGMA = 'no-cache';

/** Headers that keep tokens and OAuth errors out of caches (RFC 6749 §5.1). */
export const NO_STORE: Readonly<Record<string, string>> = {
  'cache-control': NO_CACHE_CONTROL,
  pragma: NO_PRAGMA,
};

/** Body of the mock's JSON 500, shared by the core handler and both adapters. */
export const INTERNAL_ERROR_BODY =
  '{"error":"server_error","error_description":"internal error in the mock"}';

/** A JSON answer; `extra` headers are merged in. */
export function jsonResponse(
  status: number,
  value: unknown,
  extra?: Record<string, string>,
): MockResponse {
  // Literals for the two common cases (every token answer is no-store) rather than a spread, which
  // builds the object the slow way. Always a fresh object: the node adapter adds Content-Length.
  const headers: Record<string, string> =
    extra === undefined
      ? { 'content-type': JSON_TYPE }
      : extra === NO_STORE
        ? { 'content-type': JSON_TYPE, 'cache-control': NO_CACHE_CONTROL, pragma: NO_PRAGMA }
        : { 'content-type': JSON_TYPE, ...extra };
  return { status, headers, body: JSON.stringify(value) };
}

/** Adds to the explanation of an answer (SPEC §8) without dropping what is there; returns it. */
export function explain(response: MockResponse, note: RequestNote): MockResponse {
  if (response.note) Object.assign(response.note, note);
  else response.note = note;
  return response;
}

/** `{"error","error_description"}` with the same code and reason in the explanation (SPEC §8). */
export function errorResponse(
  status: number,
  error: string,
  description: string,
  extra?: Record<string, string>,
): MockResponse {
  const response = jsonResponse(status, { error, error_description: description }, extra);
  response.note = { code: error, reason: description };
  return response;
}

/** RFC 6749 §5.2 error body `{"error","error_description"}`; 401 for invalid_client. */
export function oauthError(
  error: string,
  description: string,
  status = 400,
  extra?: Record<string, string>,
): MockResponse {
  return errorResponse(status, error, description, { ...NO_STORE, ...extra });
}

/** An HTML page (consent page, authorization error page). */
export function htmlResponse(status: number, body: string): MockResponse {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action *",
    },
    body,
  };
}

/** 302 to `location`; `note` says why when the redirect carries an error. */
export function redirectResponse(location: string, note?: RequestNote): MockResponse {
  const response: MockResponse = {
    status: 302,
    headers: { location, 'cache-control': 'no-store' },
    body: '',
  };
  if (note) response.note = note;
  return response;
}

/** 405 with `Allow` and a JSON body (RFC 9110 §15.5.6). */
export function methodNotAllowed(allow: string): MockResponse {
  return errorResponse(405, 'method_not_allowed', `allowed methods: ${allow}`, { allow });
}

/** 404 with a JSON body. */
export function notFound(description: string): MockResponse {
  return errorResponse(404, 'not_found', description);
}

/** 413: body over the limit. */
export function tooLarge(limit: number): MockResponse {
  return errorResponse(413, 'invalid_request', `request body exceeds ${limit} bytes`);
}
