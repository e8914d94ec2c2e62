import { isDeepStrictEqual } from 'node:util';
import { isObject } from '../util/guards.js';
import type { Exchange } from './types.js';

/** An OAuth endpoint's answer as the rules read it (RFC 6749 §5.1–5.2, tolerant of other shapes). */
export type OAuthAnswer =
  | { kind: 'none'; reason: string }
  | { kind: 'success'; status: number; body: Record<string, unknown> }
  | { kind: 'error'; status: number; code: string | undefined; shape: 'json' | 'text' | 'other' }
  | { kind: 'unexpected'; status: number };

/** A bare OAuth error code, as an installation with text error bodies sends it. */
const BARE_CODE = /^[a-z][a-z0-9_]*$/;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads an OAuth answer: success (a JSON object without `error`), error (with its code and shape), or neither. */
export function oauthAnswerOf(exchange: Exchange): OAuthAnswer {
  const response = exchange.response;
  if (!response) return { kind: 'none', reason: exchange.error ?? 'no answer' };
  const body = parseJson(response.text);
  const status = response.status;
  if (isObject(body)) {
    if (typeof body.error === 'string')
      return { kind: 'error', status, code: body.error, shape: 'json' };
    if (status === 200 || status === 201) return { kind: 'success', status, body };
  }
  if (status < 400) return { kind: 'unexpected', status };
  const text = response.text.trim();
  const isText = /^text\/plain/i.test(response.headers['content-type'] ?? '');
  if (isText && BARE_CODE.test(text)) return { kind: 'error', status, code: text, shape: 'text' };
  return { kind: 'error', status, code: undefined, shape: 'other' };
}

/** Whether a bearer token worked for an API call: 2xx yes, 401/403 no, anything else unknown. */
export function tokenWorked(exchange: Exchange): boolean | undefined {
  const status = exchange.response?.status;
  if (status === undefined) return undefined;
  if (status >= 200 && status < 300) return true;
  if (status === 401 || status === 403) return false;
  return undefined;
}

/**
 * Why a token's standing at the API cannot be read from this answer (no answer, or neither a 2xx
 * nor a 401/403), or undefined when it can: the API is then the instrument, not the subject.
 */
export function unknownStanding(exchange: Exchange): string | undefined {
  if (tokenWorked(exchange) !== undefined) return undefined;
  if (!exchange.response) return `the API did not answer (${exchange.error ?? 'unknown failure'})`;
  return `the API answered ${describeAnswer(exchange)}, which tells neither way whether the token works`;
}

/**
 * Why the API cannot carry the JSON-RPC rules, judged by a call with a fresh access token, or
 * undefined when it can: it answered a 2xx, or a JSON-RPC response object under another status.
 */
export function apiUnusable(exchange: Exchange): string | undefined {
  if (tokenWorked(exchange) === true) return undefined;
  const body = jsonBodyOf(exchange);
  const status = exchange.response?.status;
  const rpcAnswer = isObject(body) && ('result' in body || isObject(body.error));
  if (rpcAnswer && status !== 401 && status !== 403) return undefined;
  if (!exchange.response)
    return `the API did not answer a call with a fresh access token (${exchange.error ?? 'unknown failure'})`;
  return `the fresh access token did not work at the API, which answered ${describeAnswer(exchange)}`;
}

/**
 * Whether two answers are alike for a client (RFC 7009 §2.2): the same status and the same body,
 * as JSON when both bodies are JSON (member order aside), else as text.
 */
export function sameAnswer(a: Exchange, b: Exchange): boolean {
  if (!a.response || !b.response || a.response.status !== b.response.status) return false;
  const [x, y] = [parseJson(a.response.text), parseJson(b.response.text)];
  if (x !== undefined && y !== undefined) return isDeepStrictEqual(x, y);
  return a.response.text.trim() === b.response.text.trim();
}

/** One line saying what came back, for `observed` (never a token: bodies are not quoted). */
export function describeAnswer(exchange: Exchange | undefined): string {
  if (!exchange) return 'no request was made';
  const response = exchange.response;
  if (!response) return `no answer (${exchange.error ?? 'unknown failure'})`;
  const answer = oauthAnswerOf(exchange);
  const type = response.headers['content-type']?.split(';')[0] ?? 'no content type';
  if (answer.kind === 'error' && answer.code !== undefined) {
    return `HTTP ${response.status} ${answer.code} (${answer.shape === 'json' ? 'JSON' : 'text'} body)`;
  }
  return `HTTP ${response.status} (${type})`;
}

/** A JSON-RPC answer body, or undefined when the body is not JSON. */
export function jsonBodyOf(exchange: Exchange): unknown {
  return exchange.response ? parseJson(exchange.response.text) : undefined;
}

/** The `error.code` of a JSON-RPC response object, if it carries one. */
export function rpcErrorCode(value: unknown): number | undefined {
  if (!isObject(value) || !isObject(value.error)) return undefined;
  return typeof value.error.code === 'number' ? value.error.code : undefined;
}
