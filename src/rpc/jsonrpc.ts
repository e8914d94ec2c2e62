import { AuthError, NetworkError, ServiceError } from '../errors.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';

/** A JSON-RPC 2.0 request object (SERVICE.md §4.5, JSON-RPC 2.0 §4); no `id` makes it a notification. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
  id?: number | string | null;
}

/** Builds one call; `notify` leaves out the id (JSON-RPC 2.0 §4.1). */
export function buildCall(
  method: string,
  params: unknown,
  id: number,
  notify = false,
): JsonRpcRequest {
  return notify ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method, params, id };
}

/** The API request (SERVICE.md §4.5): POST, JSON body, bearer token in the Authorization header. */
export function buildApiRequest(url: string, accessToken: string, body: unknown): HttpRequest {
  return {
    method: 'POST',
    url,
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify(body),
  };
}

/** What came back: nothing (notification, HTTP 204) or the parsed response object/array. */
export type ApiAnswer = { kind: 'none' } | { kind: 'json'; body: unknown };

/**
 * Classifies the HTTP answer of the API endpoint (SPEC §4): 401/403 → AuthError with a login hint
 * for the scope; 404 and 5xx → ServiceError; a body that is not JSON → NetworkError.
 */
export function processApiResponse(response: HttpResponse, scope: string): ApiAnswer {
  const { status } = response;
  const challenge = response.headers['www-authenticate'] ?? '';
  if (status === 401) {
    throw new AuthError(
      `the access token was refused for scope ${scope} (HTTP 401${challenge ? `: ${challenge}` : ''})`,
      {
        code: 'invalid_token',
        status,
        hint: `dasvc login --scope ${scope}`,
      },
    );
  }
  if (status === 403) {
    throw new AuthError(
      `the access token does not grant scope ${scope} (HTTP 403${challenge ? `: ${challenge}` : ''})`,
      {
        code: 'insufficient_scope',
        status,
        hint: `dasvc login --scope ${scope}`,
      },
    );
  }
  if (status === 404) {
    throw new ServiceError(`no API for scope ${scope} at this address (HTTP 404)`, {
      code: 'http_404',
      status,
    });
  }
  if (status >= 500)
    throw new ServiceError(`the API failed: HTTP ${status}`, { code: `http_${status}`, status });
  if (status === 204 || (status === 200 && response.text.trim() === '')) return { kind: 'none' };
  let body: unknown;
  try {
    body = JSON.parse(response.text) as unknown;
  } catch {
    throw new NetworkError(`the API answered HTTP ${status} with something that is not JSON`, {
      code: 'unexpected_response',
      status,
    });
  }
  if (status !== 200 && !isResponseShape(body)) {
    throw new ServiceError(`the API answered HTTP ${status}`, {
      code: `http_${status}`,
      status,
      detail: body,
    });
  }
  return { kind: 'json', body };
}

function isResponseShape(body: unknown): boolean {
  if (Array.isArray(body)) return true;
  return body !== null && typeof body === 'object' && ('result' in body || 'error' in body);
}

/** A JSON-RPC error object as an exception: `error <code>: <message>` (SPEC §3), exit 1. */
export function rpcErrorFrom(response: unknown): ServiceError | undefined {
  if (response === null || typeof response !== 'object' || Array.isArray(response))
    return undefined;
  const error = (response as { error?: unknown }).error;
  if (error === undefined || error === null) return undefined;
  const e = (typeof error === 'object' ? error : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  const code = typeof e.code === 'number' || typeof e.code === 'string' ? e.code : '?';
  const message = typeof e.message === 'string' ? e.message : JSON.stringify(error);
  return new ServiceError(`error ${code}: ${message}`, { code: 'jsonrpc_error', detail: e.data });
}
