import { UsageError, type JsonRpcErrorObject } from '../errors.js';
import { buildCall, rpcErrorFrom, type ApiAnswer } from '../rpc/jsonrpc.js';
import { isObject } from '../util/guards.js';

/** One call of a batch (`client.batch`): ids are given in order, 1…n. */
export interface BatchCall {
  method: string;
  params?: unknown;
  notify?: boolean;
}

/** One answer of a batch, in call order: the result or the JSON-RPC error object. */
export type BatchResult = { result: unknown } | { error: JsonRpcErrorObject };

/** Sends a JSON-RPC body to a scope's API: Client.send. */
type SendBody = (scope: string, body: unknown) => Promise<ApiAnswer>;

/** One call (SPEC §1 `client.rpc`): resolves with `result`, rejects with the JSON-RPC error. */
export async function rpcCall<T>(
  send: SendBody,
  scope: string,
  method: string,
  params?: unknown,
): Promise<T> {
  const answer = await send(scope, callOf(method, params, 1));
  if (answer.kind === 'none') return undefined as T;
  const error = rpcErrorFrom(answer.body);
  if (error) throw error;
  return (answer.body as { result: T }).result;
}

/** A batch (SPEC §1 `client.batch`): one answer per call that is not a notification, in call order. */
export async function batchCall(
  send: SendBody,
  scope: string,
  calls: readonly BatchCall[],
): Promise<BatchResult[]> {
  if (!Array.isArray(calls) || calls.length === 0)
    throw new UsageError('batch: give a non-empty array of calls', { code: 'bad_params' });
  // Array.from, not map: a hole in the array is a call too, and none is skipped.
  const body = Array.from(calls, (c: unknown, i) => {
    if (!isObject(c) || (c.notify !== undefined && typeof c.notify !== 'boolean'))
      throw new UsageError(
        `batch: call ${i + 1} must be an object with a method (and a boolean notify)`,
        { code: 'bad_params' },
      );
    return callOf(c.method, c.params, i + 1, c.notify === true);
  });
  const answer = await send(scope, body);
  // A batch refused as a whole is one error object (JSON-RPC 2.0 §6), not an array (the answer
  // check lets nothing else through).
  if (answer.kind === 'json' && !Array.isArray(answer.body)) throw rpcErrorFrom(answer.body)!;
  const responses = answer.kind === 'none' ? [] : (answer.body as { id?: unknown }[]);
  const out: BatchResult[] = [];
  body.forEach((call) => {
    if (call.id === undefined) return;
    const response = responses.find((r) => r.id === call.id) as Record<string, unknown>;
    const error = rpcErrorFrom(response);
    out.push(error ? { error: error.rpc } : { result: response.result });
  });
  return out;
}

/**
 * One JSON-RPC call from what a caller (JavaScript too, without the types) handed over: a method
 * name and params that JSON-RPC 2.0 §4.2 allows (an object or an array), else a usage error here
 * rather than the service's -32600 for a call the client built.
 */
function callOf(method: unknown, params: unknown, id: number, notify?: boolean) {
  if (typeof method !== 'string' || method === '') {
    throw new UsageError(
      `rpc: the method must be a non-empty string, got ${JSON.stringify(method)}`,
      { code: 'bad_params' },
    );
  }
  // null stands for none, as undefined does (JavaScript callers write either).
  if (params !== undefined && params !== null && typeof params !== 'object') {
    throw new UsageError(
      `rpc: params must be an object or an array (JSON-RPC 2.0 takes no other), got ${typeof params}`,
      { code: 'bad_params' },
    );
  }
  return buildCall(method, params ?? {}, id, notify);
}
