import { isObject } from '../../util/guards.js';
import { describeAnswer, jsonBodyOf, rpcErrorCode } from '../answers.js';
import type { Exchange, Finding } from '../types.js';

const deviates = (observed: string, exchange: Exchange, quirk?: Finding['quirk']): Finding => ({
  status: 'deviates',
  observed,
  evidence: [exchange],
  ...(quirk ? { quirk } : {}),
});

/** Status and challenge of an API refusal, as observed. */
function challengeOf(exchange: Exchange): string {
  const response = exchange.response;
  if (!response) return describeAnswer(exchange);
  const challenge = response.headers['www-authenticate'];
  return `HTTP ${response.status}, ${challenge ? `WWW-Authenticate: ${challenge}` : 'no WWW-Authenticate'}`;
}

/**
 * A 404 from the API: no instance there (SPEC §5), so no bearer check or scope was put to the
 * test. The call's rule is skipped with this, never a deviation.
 */
function noInstance(exchange: Exchange): Finding | undefined {
  if (exchange.response?.status !== 404) return undefined;
  const url = exchange.request.url.split('?')[0]!;
  return {
    status: 'skipped',
    observed: `HTTP 404 from ${url}: no instance answers there, so nothing was put to the test`,
  };
}

/** `api.missing-bearer`, `api.wrong-bearer` (RFC 6750 §3): 401 with a Bearer challenge. */
export function bearerRefusedRule(exchange: Exchange): Finding {
  const absent = noInstance(exchange);
  if (absent) return absent;
  const response = exchange.response;
  const observed = challengeOf(exchange);
  const challenge = response?.headers['www-authenticate'] ?? '';
  if (response?.status === 401 && /^bearer\b/i.test(challenge)) return { status: 'ok', observed };
  return deviates(observed, exchange);
}

/** `api.scope-not-granted` (SERVICE.md 5.4): 403 for a scope the token was not granted. */
export function scopeNotGrantedRule(exchange: Exchange): Finding {
  const absent = noInstance(exchange);
  if (absent) return absent;
  const observed = challengeOf(exchange);
  if (exchange.response?.status === 403) return { status: 'ok', observed };
  return deviates(observed, exchange);
}

/** A JSON-RPC error answer with the expected code (JSON-RPC 2.0 §5.1). */
export function rpcErrorRule(exchange: Exchange, code: number): Finding {
  const body = jsonBodyOf(exchange);
  const got = rpcErrorCode(body);
  if (got === code) return { status: 'ok', observed: `error ${code}` };
  const observed =
    got !== undefined
      ? `error ${got}`
      : body === undefined
        ? describeAnswer(exchange)
        : `HTTP ${exchange.response!.status}, a JSON answer without error ${code}`;
  return deviates(observed, exchange);
}

/** `jsonrpc.notification` (JSON-RPC 2.0 §4.1, SPEC §5): no response, HTTP 204. */
export function notificationRule(exchange: Exchange): Finding {
  const response = exchange.response;
  if (response?.status === 204) return { status: 'ok', observed: 'HTTP 204, no body' };
  if (response && response.status === 200 && response.text.trim() === '') {
    return deviates(
      'HTTP 200 with an empty body (JSON-RPC allows it; the expected answer is 204)',
      exchange,
    );
  }
  return deviates(
    response ? `HTTP ${response.status} with a body` : describeAnswer(exchange),
    exchange,
  );
}

/** `jsonrpc.batch` (JSON-RPC 2.0 §6): an array holding one response per call, matched by id. */
export function batchRule(exchange: Exchange, ids: number[]): Finding {
  const body = jsonBodyOf(exchange);
  if (!Array.isArray(body)) {
    return deviates(
      body === undefined ? describeAnswer(exchange) : 'the answer is not an array',
      exchange,
    );
  }
  const got = body.map((r) => (isObject(r) ? r.id : undefined));
  const complete = ids.every((id) => got.includes(id)) && body.length === ids.length;
  if (complete)
    return { status: 'ok', observed: `an array of ${body.length} responses, ids matched` };
  return deviates(`an array of ${body.length} responses with ids ${JSON.stringify(got)}`, exchange);
}

/** `jsonrpc.discover` (SPEC §5): a result object (an OpenRPC document); -32601 is the rpcDiscover quirk. */
export function discoverRule(exchange: Exchange): Finding {
  const body = jsonBodyOf(exchange);
  if (isObject(body) && isObject(body.result)) {
    const version = body.result.openrpc;
    return {
      status: 'ok',
      observed: `an OpenRPC document${typeof version === 'string' ? ` (openrpc ${version})` : ''}`,
    };
  }
  const code = rpcErrorCode(body);
  if (code === -32601)
    return deviates('error -32601: rpc.discover is not offered', exchange, { rpcDiscover: false });
  return deviates(code !== undefined ? `error ${code}` : describeAnswer(exchange), exchange);
}
