import {
  AuthError,
  NetworkError,
  ServiceError,
  UsageError,
  type DasvcErrorOptions,
  type JsonRpcErrorObject,
} from '../errors.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { isObject } from '../util/guards.js';
import { asParsed, restoreExact } from '../util/exact-numbers.js';
import { isStackOverflow } from '../util/stack-overflow.js';

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
    body: jsonText(body),
  };
}

/**
 * The body as JSON text, or a usage error: params nested deeper than JSON.stringify can go (it
 * overflows the stack), a BigInt or a cycle (from the library) cannot be sent.
 */
function jsonText(body: unknown): string {
  try {
    // Numbers the CLI read with parseExact go out digit for digit.
    return restoreExact(JSON.stringify(body));
  } catch (error) {
    const why = isStackOverflow(error) ? 'they are nested too deep' : (error as Error).message;
    throw new UsageError(`the params cannot be sent as JSON: ${why}`, { code: 'bad_params' });
  }
}

/** What came back: nothing (notification, HTTP 204) or the parsed response object/array. */
export type ApiAnswer =
  | { kind: 'none' }
  /** `text`: the body as it came, for a reader that keeps what JSON.parse rounds (parseExact). */
  | { kind: 'json'; body: unknown; text: string };

/**
 * A JSON-RPC error answer as an exception: `error <code>: <message>` (SPEC §3), exit 1, with the
 * error object as `rpc`. Constructed as every DasvcError is, so that sameKind can retell it.
 */
export class JsonRpcError extends ServiceError {
  override readonly name: string = 'JsonRpcError';
  declare readonly rpc: JsonRpcErrorObject;

  constructor(message: string, options: DasvcErrorOptions & { rpc: JsonRpcErrorObject }) {
    super(message, options);
  }

  static {
    // As the classes of errors.ts: its own name, not the letter the bundle gives it.
    Object.defineProperty(this, 'name', { value: 'JsonRpcError' });
  }

  /** The error of a JSON-RPC error object as the service answered it. */
  static of(rpc: JsonRpcErrorObject, hint?: string): JsonRpcError {
    return new JsonRpcError(`error ${rpc.code}: ${rpc.message}`, {
      code: 'jsonrpc_error',
      detail: rpc.data,
      rpc,
      ...(hint === undefined ? {} : { hint }),
    });
  }
}

function notExpected(status: number, why: string): NetworkError {
  return new NetworkError(
    `the API answered HTTP ${status} with something that is not the JSON-RPC answer expected (${why})`,
    { code: 'unexpected_response', status },
  );
}

/** Whether `text` parses as JSON. */
export function isJsonText(text: string): boolean {
  return jsonOf(text) !== undefined;
}

/** The JSON value a text holds, or undefined when it holds none. */
function jsonOf(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The ids a request (one call or a batch) expects answers for; notifications expect none. */
function expectedIds(request: unknown): (string | number | null)[] {
  const calls = Array.isArray(request) ? request : [request];
  const ids: (string | number | null)[] = [];
  for (const call of calls) {
    // A member that is not a request object is answered with an error whose id is null (§5).
    if (!isObject(call)) ids.push(null);
    // An id read digit for digit (parseExact) is answered with the number JSON.parse reads.
    else if ('id' in call) ids.push(asParsed(call.id) as string | number | null);
  }
  return ids;
}

/**
 * Why `item` is not a JSON-RPC 2.0 response object (JSON-RPC 2.0 §5): `jsonrpc` "2.0", exactly one
 * of `result` and `error`, an error object with an integer code and a string message, and an id
 * (null only for an error). Undefined when it is one.
 */
function responseShapeProblem(item: unknown): string | undefined {
  if (!isObject(item)) return 'not a response object';
  if (item.jsonrpc !== '2.0') return 'no "jsonrpc": "2.0"';
  const hasResult = 'result' in item;
  const hasError = 'error' in item;
  if (hasResult === hasError) return 'it must hold exactly one of "result" and "error"';
  if (!('id' in item)) return 'no "id"';
  if (hasError) {
    const error = item.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      return '"error" is not an error object with an integer code and a message';
  }
  return undefined;
}

/**
 * Checks a parsed answer against the request it answers (JSON-RPC 2.0 §5–6): one response object
 * with the call's id for a call, an array of responses to the batch's ids for a batch (a single
 * error object when the batch itself was refused). Undefined when it fits, else why not.
 */
function answerProblem(body: unknown, request: unknown): string | undefined {
  const wanted = expectedIds(request);
  const items = Array.isArray(body) ? body : [body];
  if (Array.isArray(request)) {
    if (!Array.isArray(body)) {
      // §6: a batch that is not recognised as one is answered by a single error object.
      if (isObject(body) && 'error' in body && body.id === null) return responseShapeProblem(body);
      return 'a batch must be answered with an array';
    }
    if (body.length === 0) return 'an empty array';
  } else if (Array.isArray(body)) return 'an array answering a single call';
  // How many answers each id may still get: a batch may send one id twice (JSON-RPC 2.0 asks
  // for unique ids only of the client's own bookkeeping), and gets it answered twice.
  const left = new Map<unknown, number>();
  for (const id of wanted) left.set(id, (left.get(id) ?? 0) + 1);
  for (const item of items) {
    const problem = responseShapeProblem(item);
    if (problem !== undefined) return Array.isArray(body) ? `a batch item: ${problem}` : problem;
    const id = (item as { id: unknown }).id;
    if (id === null) {
      // Null answers a call it could not read (§5), or a call that itself carried a null id.
      if ('result' in (item as object) && !wanted.includes(null)) return 'a result with a null id';
      continue;
    }
    if ((typeof id !== 'string' && typeof id !== 'number') || !wanted.includes(id))
      return `id ${JSON.stringify(id)} answers no call that was sent`;
    const times = left.get(id)!;
    if (times === 0) return `id ${JSON.stringify(id)} is answered more often than it was sent`;
    left.set(id, times - 1);
  }
  return undefined;
}

/** Whether a request (call or batch) expects no answer at all: a notification or only notifications. */
function expectsNoAnswer(request: unknown): boolean {
  const calls = Array.isArray(request) ? request : [request];
  return calls.length > 0 && expectedIds(request).length === 0;
}

/** The API's refusals of the token (RFC 6750 §3.1): what the message says, and the code. */
const TOKEN_REFUSALS: Record<number, { says: string; code: string } | undefined> = {
  401: { says: 'was refused for', code: 'invalid_token' },
  403: { says: 'does not grant', code: 'insufficient_scope' },
};

/**
 * Classifies the HTTP answer of the API endpoint (SPEC §4): 401/403 → AuthError naming the scope
 * (the CLI adds the login hint); 5xx and a JSON 404 → ServiceError, with the service's JSON as
 * its detail; a body that is not the JSON-RPC answer to `request` (when given) → NetworkError.
 * An empty answer is accepted only when the request expects none.
 */
export function processApiResponse(
  response: HttpResponse,
  scope: string,
  request?: unknown,
): ApiAnswer {
  const { status } = response;
  const refusal = TOKEN_REFUSALS[status];
  if (refusal) {
    const challenge = response.headers['www-authenticate'] ?? '';
    throw new AuthError(
      `the access token ${refusal.says} scope ${scope} (HTTP ${status}${challenge ? `: ${challenge}` : ''})`,
      { code: refusal.code, status, facts: { scope } },
    );
  }
  if (status === 404) {
    // The service's own refusal is JSON (exit 1); a 404 page of some other server at this address
    // is a response that is not the JSON expected (SPEC §4: exit 4), named as what it likely is.
    const message = `no API for scope ${scope} at this address (HTTP 404`;
    const json = jsonOf(response.text);
    if (json === undefined) {
      throw new NetworkError(`${message}, not JSON: is the base URL or --api-url right?)`, {
        code: 'unexpected_response',
        status,
      });
    }
    throw new ServiceError(`${message})`, { code: 'http_404', status, detail: json.value });
  }
  if (status >= 500) {
    // Some servers send their JSON-RPC errors (-32603 above all) with a 5xx: the error object
    // says more than the status (SPEC §3 `error <code>: <message>`); exit 1 either way.
    const answer = rpcErrorAnswer(response.text, request);
    if (answer) return answer;
    // The service's words, when it said them in JSON (an HTML error page is no one's words).
    const json = jsonOf(response.text);
    throw new ServiceError(`the API failed: HTTP ${status}`, {
      code: `http_${status}`,
      status,
      ...(json === undefined ? {} : { detail: json.value }),
    });
  }
  if (status === 204 || (status === 200 && response.text.trim() === '')) {
    if (request === undefined || expectsNoAnswer(request)) return { kind: 'none' };
    throw notExpected(status, status === 204 ? 'no content' : 'an empty body');
  }
  let body: unknown;
  try {
    body = JSON.parse(response.text) as unknown;
  } catch {
    throw notExpected(status, 'not JSON');
  }
  const problem = shapeProblem(body, request);
  if (problem !== undefined) {
    if (status !== 200) {
      throw new ServiceError(`the API answered HTTP ${status}`, {
        code: `http_${status}`,
        status,
        detail: body,
      });
    }
    throw notExpected(status, problem);
  }
  return { kind: 'json', body, text: response.text };
}

/** A body that is the JSON-RPC answer to `request` and holds an error, as an answer; else undefined. */
function rpcErrorAnswer(text: string, request: unknown): ApiAnswer | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  const items = Array.isArray(body) ? body : [body];
  if (!items.some((item) => isObject(item) && 'error' in item)) return undefined;
  return shapeProblem(body, request) === undefined ? { kind: 'json', body, text } : undefined;
}

/**
 * Why a parsed body is not the JSON-RPC answer expected: to `request` when it is known, else
 * a response object or an array of them. Undefined when it is one.
 */
function shapeProblem(body: unknown, request: unknown): string | undefined {
  if (request !== undefined) return answerProblem(body, request);
  const items = Array.isArray(body) ? body : [body];
  return items.map(responseShapeProblem).find((p) => p !== undefined);
}

/** A JSON-RPC error object as an exception: `error <code>: <message>` (SPEC §3), exit 1. */
export function rpcErrorFrom(response: unknown, hint?: string): JsonRpcError | undefined {
  if (!isObject(response)) return undefined;
  const error = response.error;
  if (error === undefined || error === null) return undefined;
  const e = (isObject(error) ? error : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  return JsonRpcError.of(
    {
      code: typeof e.code === 'number' ? e.code : Number(e.code),
      message: typeof e.message === 'string' ? e.message : JSON.stringify(error),
      ...(e.data === undefined ? {} : { data: e.data }),
    },
    hint,
  );
}
