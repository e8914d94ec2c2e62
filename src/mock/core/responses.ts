import type { MockResponse } from './types.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Headers that keep tokens and OAuth errors out of caches (RFC 6749 §5.1). */
export const NO_STORE: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  pragma: 'no-cache',
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
  return { status, headers: { 'content-type': JSON_TYPE, ...extra }, body: JSON.stringify(value) };
}

/** RFC 6749 §5.2 error body `{"error","error_description"}`; 401 for invalid_client. */
export function oauthError(
  error: string,
  description: string,
  status = 400,
  extra?: Record<string, string>,
): MockResponse {
  return jsonResponse(status, { error, error_description: description }, { ...NO_STORE, ...extra });
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

/** 302 to `location`. */
export function redirectResponse(location: string): MockResponse {
  return { status: 302, headers: { location, 'cache-control': 'no-store' }, body: '' };
}

/** 405 with `Allow` and a JSON body (RFC 9110 §15.5.6). */
export function methodNotAllowed(allow: string): MockResponse {
  return jsonResponse(
    405,
    { error: 'method_not_allowed', error_description: `allowed methods: ${allow}` },
    { allow },
  );
}

/** 404 with a JSON body. */
export function notFound(description: string): MockResponse {
  return jsonResponse(404, { error: 'not_found', error_description: description });
}

/** 413: body over the limit. */
export function tooLarge(limit: number): MockResponse {
  return jsonResponse(413, {
    error: 'invalid_request',
    error_description: `request body exceeds ${limit} bytes`,
  });
}
