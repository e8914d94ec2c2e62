import { isObject } from '../../util/guards.js';

/** A JSON-RPC 2.0 error object (§5.1). */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A method's outcome; `json` is the result already serialised (static fixture results). */
export type RpcOutcome = { result: unknown; json?: string } | { error: RpcError };

/** Calls one method with its params (absent params come as undefined). */
export type RpcInvoke = (method: string, params: unknown) => Promise<RpcOutcome> | RpcOutcome;

type Id = string | number | null;

/** What a JSON-RPC body asked and was refused (SPEC §8), filled in as it is processed. */
export interface RpcTrace {
  /** Method names of the well-formed calls, in order. */
  methods: string[];
  /** Each error answered (notifications' too), with a one-line reason. */
  errors: { code: number; reason: string }[];
}

/** One line for an error: its `data` when that is a string, else message and data as JSON. */
function reasonOf(error: RpcError): string {
  if (typeof error.data === 'string') return error.data;
  if (error.data === undefined) return error.message;
  const data = JSON.stringify(error.data) ?? '';
  return `${error.message} ${data.length > 200 ? `${data.slice(0, 200)}…` : data}`;
}

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

async function processOne(request: unknown, invoke: RpcInvoke, trace?: RpcTrace): Promise<unknown> {
  if (!isObject(request)) {
    trace?.errors.push({ code: INVALID_REQUEST.code, reason: 'request is not a JSON object' });
    return errorResponse(null, INVALID_REQUEST);
  }
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
    trace?.errors.push({ code: INVALID_REQUEST.code, reason: why });
    return errorResponse(id, { ...INVALID_REQUEST, data: why });
  }
  trace?.methods.push(request.method);
  let outcome: RpcOutcome;
  try {
    outcome = await invoke(request.method, params);
  } catch {
    outcome = { error: { code: -32603, message: 'Internal error' } };
  }
  if (trace && 'error' in outcome) {
    trace.errors.push({ code: outcome.error.code, reason: reasonOf(outcome.error) });
  }
  if (!hasId) return undefined; // a notification gets no response (JSON-RPC 2.0 §4.1)
  if ('error' in outcome) return errorResponse(id, outcome.error);
  const response = { jsonrpc: '2.0', result: outcome.result, id };
  if (outcome.json !== undefined) resultJson.set(response, outcome.json);
  return response;
}

/** Responses whose result comes serialised already, with that JSON. */
const resultJson = new WeakMap<object, string>();

function serialiseOne(response: unknown): string {
  const json = resultJson.get(response as object);
  if (json === undefined) return JSON.stringify(response);
  const { id } = response as { id: Id };
  return `{"jsonrpc":"2.0","result":${json},"id":${JSON.stringify(id)}}`;
}

/** The HTTP body of what processJsonRpc returned: static results are spliced in as serialised. */
export function serialiseRpc(value: unknown): string {
  return Array.isArray(value) ? `[${value.map(serialiseOne).join(',')}]` : serialiseOne(value);
}

/**
 * JSON-RPC 2.0 over one HTTP body (§4-§6): single calls, notifications and batches. Returns the
 * response value to send, or undefined when nothing is to be sent (HTTP 204).
 */
export async function processJsonRpc(
  body: string,
  invoke: RpcInvoke,
  trace?: RpcTrace,
): Promise<unknown> {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch (error) {
    trace?.errors.push({
      code: PARSE_ERROR.code,
      reason: `body is not valid JSON (${(error as Error).message})`,
    });
    return errorResponse(null, PARSE_ERROR);
  }
  if (!Array.isArray(message)) return processOne(message, invoke, trace);
  if (message.length === 0) {
    trace?.errors.push({ code: INVALID_REQUEST.code, reason: 'empty batch' });
    return errorResponse(null, { ...INVALID_REQUEST, data: 'empty batch' });
  }
  const responses: unknown[] = [];
  for (const request of message) {
    const response = await processOne(request, invoke, trace);
    if (response !== undefined) responses.push(response);
  }
  return responses.length === 0 ? undefined : responses;
}
