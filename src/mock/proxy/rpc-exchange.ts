// The JSON-RPC calls of one HTTP exchange (JSON-RPC 2.0 §4–§6), paired with their answers by id,
// for --record and --validate. Pure. A request that is not a valid JSON-RPC 2.0 request but names
// a method is a call marked `invalid`, kept with the error it was answered with (SPEC §6 keeps a
// call answered -32600 as an error example); replay never answers a call with it, since the mock
// refuses such requests itself and a valid call with the same params is no such request.
import { isObject } from '../../util/guards.js';
import type { Example } from '../fixture-format/descriptors.js';
import { requestProblem, type RpcRequest } from '../routes/json-rpc.js';

/** One call that passed: method, params as sent, and the answer (none for a notification). */
export interface RpcCall {
  method: string;
  params: unknown;
  outcome?: Example['outcome'];
  /** Sent without an id (JSON-RPC 2.0 §4.1): no answer is due. */
  notification?: true;
  /** Why the request was no valid JSON-RPC 2.0 request (the mock's words): only its error counts. */
  invalid?: string;
}

function parse(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function outcomeOf(response: unknown): Example['outcome'] | undefined {
  if (!isObject(response)) return undefined;
  if ('result' in response) return { result: response.result };
  const error = response.error;
  if (isObject(error) && Number.isInteger(error.code) && typeof error.message === 'string') {
    return {
      error: {
        code: error.code as number,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    };
  }
  return undefined;
}

/**
 * The error example of a call that an HTTP error answered without a JSON-RPC answer (a 401, a
 * gateway's 502 page): a JSON-RPC error of the server range that names the status and, when the
 * body is an RFC 6749 error, its code and description, with the body as `data` when it is a JSON
 * object (a page of text would only repeat the status).
 */
export function httpErrorOutcome(status: number, body: string | undefined): Example['outcome'] {
  const parsed = parse(body);
  // A JSON-RPC error for the whole request (its id null: -32600, -32700) is the answer itself.
  const whole = isObject(parsed) && parsed.id === null ? outcomeOf(parsed) : undefined;
  if (whole && 'error' in whole) return whole;
  const data = isObject(parsed) ? parsed : undefined;
  const error = typeof data?.error === 'string' ? data.error : undefined;
  const description =
    typeof data?.error_description === 'string' ? ` (${data.error_description})` : '';
  return {
    error: {
      code: -32000,
      message: `HTTP ${status}${error === undefined ? '' : `: ${error}${description}`}`,
      ...(data === undefined ? {} : { data }),
    },
  };
}

/** The calls of a request body paired with the answers of a response body. */
export function pairCalls(requestBody: string, responseBody: string | undefined): RpcCall[] {
  const request = parse(requestBody);
  const response = parse(responseBody);
  const requests = Array.isArray(request) ? request : [request];
  const responses = Array.isArray(response) ? response : response === undefined ? [] : [response];
  const byId = new Map<string, unknown>();
  for (const r of responses) if (isObject(r) && 'id' in r) byId.set(JSON.stringify(r.id), r);
  const calls: RpcCall[] = [];
  for (const value of requests) {
    // The mock's rule, so that a call is what the mock would take as one.
    const problem = requestProblem(value);
    if (problem !== undefined) {
      // Its answer by its id, else the one answer to a request sent alone (an id it could not
      // read is answered null).
      const answer = isObject(value)
        ? (byId.get(JSON.stringify(value.id)) ?? (Array.isArray(request) ? undefined : response))
        : undefined;
      const refused = refusedCall(value, problem, answer);
      if (refused) calls.push(refused);
      continue;
    }
    const r = value as RpcRequest;
    const call: RpcCall = { method: r.method, params: r.params };
    if ('id' in r) {
      const outcome = outcomeOf(byId.get(JSON.stringify(r.id)));
      if (outcome) call.outcome = outcome;
    } else call.notification = true;
    calls.push(call);
  }
  return calls;
}

/**
 * A request that is no valid JSON-RPC 2.0 request (`problem`) but names a method, with the error
 * it was answered with; undefined without both. Params that are neither an object nor an array
 * are none.
 */
function refusedCall(value: unknown, problem: string, answer: unknown): RpcCall | undefined {
  if (!isObject(value) || typeof value.method !== 'string') return undefined;
  const outcome = outcomeOf(answer);
  if (!outcome || !('error' in outcome)) return undefined;
  const params =
    typeof value.params === 'object' && value.params !== null ? value.params : undefined;
  return { method: value.method, params, outcome, invalid: problem };
}
