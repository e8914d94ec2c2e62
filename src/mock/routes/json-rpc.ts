import { isObject } from '../../util/guards.js';

/** A JSON-RPC 2.0 error object (§5.1). */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcOutcome = { result: unknown } | { error: RpcError };

/** Calls one method with its params (absent params come as undefined). */
export type RpcInvoke = (method: string, params: unknown) => Promise<RpcOutcome> | RpcOutcome;

type Id = string | number | null;

const PARSE_ERROR: RpcError = { code: -32700, message: 'Parse error' };
const INVALID_REQUEST: RpcError = { code: -32600, message: 'Invalid Request' };

function validId(value: unknown): value is Id {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

function errorResponse(id: Id, error: RpcError): unknown {
  return { jsonrpc: '2.0', error, id };
}

async function processOne(request: unknown, invoke: RpcInvoke): Promise<unknown> {
  if (!isObject(request)) return errorResponse(null, INVALID_REQUEST);
  const hasId = 'id' in request;
  const id = hasId && validId(request.id) ? request.id : null;
  const params = request.params;
  if (
    request.jsonrpc !== '2.0' ||
    typeof request.method !== 'string' ||
    (hasId && !validId(request.id)) ||
    (params !== undefined && typeof params !== 'object') ||
    params === null
  ) {
    const why =
      request.jsonrpc !== '2.0'
        ? 'jsonrpc must be "2.0"'
        : typeof request.method !== 'string'
          ? 'method must be a string'
          : hasId && !validId(request.id)
            ? 'id must be a string, a number or null'
            : 'params must be an object or an array';
    return errorResponse(id, { ...INVALID_REQUEST, data: why });
  }
  let outcome: RpcOutcome;
  try {
    outcome = await invoke(request.method, params);
  } catch {
    outcome = { error: { code: -32603, message: 'Internal error' } };
  }
  if (!hasId) return undefined; // a notification gets no response (JSON-RPC 2.0 §4.1)
  return 'error' in outcome
    ? errorResponse(id, outcome.error)
    : { jsonrpc: '2.0', result: outcome.result, id };
}

/**
 * JSON-RPC 2.0 over one HTTP body (§4-§6): single calls, notifications and batches. Returns the
 * response value to send, or undefined when nothing is to be sent (HTTP 204).
 */
export async function processJsonRpc(body: string, invoke: RpcInvoke): Promise<unknown> {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return errorResponse(null, PARSE_ERROR);
  }
  if (!Array.isArray(message)) return processOne(message, invoke);
  if (message.length === 0) return errorResponse(null, { ...INVALID_REQUEST, data: 'empty batch' });
  const responses: unknown[] = [];
  for (const request of message) {
    const response = await processOne(request, invoke);
    if (response !== undefined) responses.push(response);
  }
  return responses.length === 0 ? undefined : responses;
}
