import { isUtf8 } from 'node:buffer';
import { utf8Text } from '../../util/utf8-text.js';
import { isObject } from '../../util/guards.js';
import { jsonSyntaxProblem } from '../../util/json-error.js';
import { redactJson } from '../../util/redact.js';
import { keptNumber, parseExact } from '../../util/exact-numbers.js';

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

/** An id a double would change (a 64-bit id, `1e400`): answered with the text it was sent as. */
class ExactId {
  constructor(readonly text: string) {}
}

type Id = string | number | null | ExactId;

/** What a JSON-RPC body asked and was refused (SPEC §8), filled in as it is processed. */
export interface RpcTrace {
  /** Method names of the well-formed calls, in order. */
  methods: string[];
  /** Each error answered (notifications' too), with a one-line reason. */
  errors: { code: number; reason: string }[];
}

/**
 * One line for an error: its `data` when that is a string, else message and data as JSON, with
 * the data's secret members masked (the line goes to the log and the journal).
 */
export function reasonOf(error: RpcError): string {
  if (typeof error.data === 'string') return error.data;
  if (error.data === undefined) return error.message;
  const data = JSON.stringify(redactJson(error.data)) ?? '';
  return `${error.message} ${data.length > 200 ? `${data.slice(0, 200)}…` : data}`;
}

const PARSE_ERROR: RpcError = { code: -32700, message: 'Parse error' };
const INVALID_REQUEST: RpcError = { code: -32600, message: 'Invalid Request' };

function validId(value: unknown): value is Id {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    value instanceof ExactId
  );
}

/** An id as JSON text. */
function idJson(id: Id): string {
  return id instanceof ExactId ? id.text : JSON.stringify(id);
}

function errorResponse(id: Id, error: RpcError): unknown {
  return { jsonrpc: '2.0', error, id };
}

/** A success whose result a fixture serialised already: spliced into the body as it is. */
class PreSerialised {
  // Members in the order of a plain response, so that JSON.stringify of it reads the same.
  readonly jsonrpc: '2.0';
  readonly result: unknown;
  readonly id: Id;
  readonly #json: string;
  constructor(result: unknown, id: Id, json: string) {
    this.jsonrpc = '2.0';
    this.result = result;
    this.id = id;
    this.#json = json;
  }

  /** The response's JSON, the result as it was serialised once. */
  serialise(): string {
    return `{"jsonrpc":"2.0","result":${this.#json},"id":${idJson(this.id)}}`;
  }
}

const internalError = (): RpcOutcome => ({ error: { code: -32603, message: 'Internal error' } });

/** What to answer for one call once its outcome is known (undefined for a notification). */
function replyTo(outcome: RpcOutcome, id: Id, hasId: boolean, trace?: RpcTrace): unknown {
  if (trace && 'error' in outcome) {
    trace.errors.push({ code: outcome.error.code, reason: reasonOf(outcome.error) });
  }
  if (!hasId) return undefined; // a notification gets no response (JSON-RPC 2.0 §4.1)
  if ('error' in outcome) return errorResponse(id, outcome.error);
  if (outcome.json !== undefined) return new PreSerialised(outcome.result, id, outcome.json);
  return { jsonrpc: '2.0', result: outcome.result, id };
}

/** A request object that passed `requestProblem`. */
export interface RpcRequest {
  jsonrpc: '2.0';
  method: string;
  params?: object;
  id?: Id;
}

/**
 * Why `request` is not a JSON-RPC 2.0 request object (-32600), or undefined when it is. Any
 * string is a method, "" too: a call to a method that is not there is answered -32601.
 */
export function requestProblem(request: unknown): string | undefined {
  if (!isObject(request)) return 'request is not a JSON object';
  if (request.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof request.method !== 'string') return 'method must be a string';
  if ('id' in request && !validId(request.id)) return 'id must be a string, a number or null';
  const params = request.params;
  if ((params !== undefined && typeof params !== 'object') || params === null)
    return 'params must be an object or an array';
  return undefined;
}

/** One call; synchronous when the method answers synchronously (static results). */
function processOne(value: unknown, invoke: RpcInvoke, trace?: RpcTrace): unknown {
  const problem = requestProblem(value);
  if (problem !== undefined) {
    trace?.errors.push({ code: INVALID_REQUEST.code, reason: problem });
    if (!isObject(value)) return errorResponse(null, INVALID_REQUEST);
    const id = 'id' in value && validId(value.id) ? value.id : null;
    return errorResponse(id, { ...INVALID_REQUEST, data: problem });
  }
  const request = value as RpcRequest;
  const hasId = 'id' in request;
  const id = request.id ?? null;
  const params = request.params;
  trace?.methods.push(request.method);
  let outcome: RpcOutcome | Promise<RpcOutcome>;
  try {
    outcome = invoke(request.method, params);
  } catch {
    outcome = internalError();
  }
  if (!(outcome instanceof Promise)) return replyTo(outcome, id, hasId, trace);
  return outcome.then(
    (settled) => replyTo(settled, id, hasId, trace),
    () => replyTo(internalError(), id, hasId, trace),
  );
}

function serialiseOne(response: unknown): string {
  if (response instanceof PreSerialised) return response.serialise();
  const { id, ...members } = response as { id: Id };
  // The id last, as in every response built here.
  return id instanceof ExactId
    ? `${JSON.stringify(members).slice(0, -1)},"id":${id.text}}`
    : JSON.stringify(response);
}

/** The HTTP body of what processJsonRpc returned: static results are spliced in as serialised. */
export function serialiseRpc(value: unknown): string {
  return Array.isArray(value) ? `[${value.map(serialiseOne).join(',')}]` : serialiseOne(value);
}

/** A batch (§6): its calls one after the other, in order. */
async function processBatch(
  batch: unknown[],
  invoke: RpcInvoke,
  trace?: RpcTrace,
): Promise<unknown> {
  const responses: unknown[] = [];
  for (const request of batch) {
    const response = await processOne(request, invoke, trace);
    if (response !== undefined) responses.push(response);
  }
  return responses.length === 0 ? undefined : responses;
}

/**
 * JSON-RPC 2.0 over one HTTP body's bytes: a body that is not UTF-8 is a parse error (-32700), not
 * text with U+FFFD in it, which would echo back an id other than the one sent.
 */
export function processJsonRpcBytes(
  bytes: Uint8Array,
  invoke: RpcInvoke,
  trace?: RpcTrace,
): unknown {
  // UTF-8 that refuses what is not (RFC 8259 §8.1): checked, then decoded. A BOM is kept, so
  // JSON.parse refuses it too.
  if (!isUtf8(bytes)) {
    trace?.errors.push({
      code: PARSE_ERROR.code,
      reason: 'body is not UTF-8 (JSON exchanged between systems must be)',
    });
    return errorResponse(null, PARSE_ERROR);
  }
  return processJsonRpc(utf8Text(bytes), invoke, trace);
}

/**
 * `message` with each call's id that a double would change as the text it was sent as: a response
 * has "the same value as the id" of its call (§5). Only a body holding such a number is read twice.
 */
function withExactIds(message: unknown, body: string): unknown {
  const exact = parseExact(body, { value: message });
  if (exact === message) return message;
  const calls: unknown[] = Array.isArray(message) ? message : [message];
  const exactCalls: unknown[] = Array.isArray(exact) ? exact : [exact];
  for (const [i, call] of calls.entries()) {
    const exactCall = exactCalls[i];
    const text = isObject(exactCall) ? keptNumber(exactCall.id) : undefined;
    if (text !== undefined && isObject(call)) call.id = new ExactId(text);
  }
  return message;
}

/**
 * JSON-RPC 2.0 over one HTTP body (§4-§6): single calls, notifications and batches. Returns the
 * response value to send, or undefined when nothing is to be sent (HTTP 204); a promise of it
 * only when a method answers asynchronously (or for a batch).
 */
export function processJsonRpc(body: string, invoke: RpcInvoke, trace?: RpcTrace): unknown {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch (error) {
    trace?.errors.push({
      code: PARSE_ERROR.code,
      reason: `body is not valid JSON (${jsonSyntaxProblem(error)})`,
    });
    return errorResponse(null, PARSE_ERROR);
  }
  message = withExactIds(message, body);
  if (!Array.isArray(message)) return processOne(message, invoke, trace);
  if (message.length === 0) {
    trace?.errors.push({ code: INVALID_REQUEST.code, reason: 'empty batch' });
    return errorResponse(null, { ...INVALID_REQUEST, data: 'empty batch' });
  }
  return processBatch(message, invoke, trace);
}
