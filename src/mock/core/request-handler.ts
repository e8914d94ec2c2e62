import { foreignOrigin } from './foreign-origin.js';
import { setTimeout as delay } from 'node:timers/promises';
import { UsageError } from '../../errors.js';
import { isObject } from '../../util/guards.js';
import type { MockContext } from './context.js';
import type { MockOptions, MockRequest, MockResponse } from './types.js';
import { BODY_LIMIT, BodyTooLargeError, ClientGoneError } from './types.js';
import { handleApiRequest } from '../routes/api.js';
import { handleAuthorizationRequest, handleConsentSubmission } from '../routes/authorize.js';
import { handleControl } from '../routes/control.js';
import { type Fault, FaultQueue } from './faults.js';
import {
  bodyExcerpt,
  DEFAULT_JOURNAL_SIZE,
  Journal,
  maskEntry,
  type JournalRecord,
  toEntry,
} from './journal.js';
import { formatLogLine } from './log-line.js';
import { parseOAuthParams } from '../routes/oauth-params.js';
import {
  errorResponse,
  INTERNAL_ERROR_BODY,
  JSON_TYPE,
  methodNotAllowed,
  notFound,
  redirectResponse,
  tooLarge,
} from './responses.js';
import { handleRevokeRequest } from '../routes/revoke.js';
import { handleTokenRequest } from '../routes/token.js';
import { movedTokenEndpoint, quirkErrorBody } from './quirks.js';

const API_PREFIX = '/webservice/json/';

const OAUTH_PATHS = new Map<string, 'authorize' | 'token' | 'refresh' | 'revoke'>([
  ['/webservice/authorize/', 'authorize'],
  ['/webservice/authorize', 'token'],
  ['/webservice/authorize/refresh_token', 'refresh'],
  ['/webservice/authorize/refresh_token/', 'refresh'],
  ['/webservice/authorize/revoke', 'revoke'],
  ['/webservice/authorize/revoke/', 'revoke'],
]);

/**
 * A refusal no route explained (SPEC §8 wants a code and a reason for each): its own
 * `{"error","error_description"}` body says why, else its status does.
 */
function explainFromBody(response: MockResponse): void {
  let body: unknown;
  // Only an object can explain; a proxied answer's `body` is '' (its bytes stream), and a throw
  // per refused proxied call is a cost for nothing.
  if (/^\s*\{/.test(response.body))
    try {
      body = JSON.parse(response.body);
    } catch {
      body = undefined;
    }
  const error = isObject(body) && typeof body.error === 'string' ? body.error : undefined;
  const description =
    isObject(body) && typeof body.error_description === 'string'
      ? body.error_description
      : undefined;
  response.note = {
    ...response.note,
    code: error ?? `http_${response.status}`,
    reason: description ?? response.note?.reason ?? `HTTP ${response.status} without a reason`,
  };
}

/**
 * The mock's request handling (SPEC §5): base path, control routes, injected faults, the OAuth
 * endpoints and the API, with the journal and the request log. Loaded on the first request, so
 * that `dasvc mock` listens without it.
 */
export function createRequestHandler(
  ctx: MockContext,
  options: Pick<MockOptions, 'log' | 'onRequest' | 'journalSize' | 'quiet'>,
  /** Pending loading of computed-method modules, or undefined once they are loaded. */
  loading: () => Promise<void> | undefined,
  /** Aborted when the server closes: injected latency ends, so in-flight requests are answered. */
  closing?: AbortSignal,
): (request: MockRequest) => Promise<MockResponse> {
  const { basePath, state } = ctx;
  const { log, onRequest } = options;
  // Under --quiet no entry is even built for the log (it costs a date and a redaction a request).
  const requestLog = options.quiet ? undefined : log;
  const journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE);
  const faults = new FaultQueue();

  /** The API (SERVICE.md 4.5): `/webservice/json/<instance>`. */
  function api(request: MockRequest, path: string): MockResponse | Promise<MockResponse> {
    let instance = path.slice(API_PREFIX.length);
    if (instance.endsWith('/')) instance = instance.slice(0, -1);
    // Most names have no escape: decodeURIComponent (and its try) only for those that do.
    if (instance.includes('%')) {
      try {
        instance = decodeURIComponent(instance);
      } catch {
        return notFound('malformed instance name');
      }
    }
    if (instance === '' || instance.includes('/')) return notFound(`no endpoint ${path}`);
    return handleApiRequest(ctx, request, instance);
  }

  /** The OAuth endpoints (SERVICE.md 4.1-4.4), their error bodies as the errorBody quirk wants. */
  async function oauth(request: MockRequest, path: string): Promise<MockResponse> {
    // The tokenPath quirk (SPEC §7) moves the token endpoint; the old path then serves only
    // authorization requests (and, with its slash, consent submissions): no token request.
    const moved = movedTokenEndpoint(path, ctx.quirks);
    const endpoint = moved === 'token' ? 'token' : OAUTH_PATHS.get(path);
    const body =
      endpoint !== undefined && request.method === 'POST' ? await request.text(BODY_LIMIT) : '';
    return quirkErrorBody(oauthAnswer(request, path, moved, endpoint, body), ctx.quirks);
  }

  function oauthAnswer(
    request: MockRequest,
    path: string,
    moved: 'token' | 'gone' | undefined,
    endpoint: 'authorize' | 'token' | 'refresh' | 'revoke' | undefined,
    body: string,
  ): MockResponse {
    if (endpoint === undefined) {
      // The dashboard's address typed without its slash (its relative URLs need the slash).
      if (path === '/_mock') return redirectResponse(`${basePath}/_mock/`);
      return notFound(`no endpoint ${path}`);
    }
    if (request.method !== 'GET' && request.method !== 'POST') return methodNotAllowed('GET, POST');
    const params = parseOAuthParams(request.query, body, request.header('content-type') ?? '');
    const authorization = request.header('authorization');
    if (moved === 'token') return handleTokenRequest(ctx, params, authorization, 'token');
    // As the routing below reads it: grant_type makes a token request at either spelling, and so
    // does anything else at the path without its slash but an authorization request.
    const v = params.values;
    const tokenRequest = v.has('grant_type') || (endpoint === 'token' && !v.has('response_type'));
    if (moved === 'gone' && tokenRequest) {
      return notFound(`no endpoint ${path}: the token endpoint is at ${ctx.quirks.tokenPath}`);
    }
    if (endpoint === 'refresh') return handleTokenRequest(ctx, params, authorization, 'refresh');
    if (endpoint === 'revoke') return handleRevokeRequest(ctx, params, authorization);
    // Both spellings of /webservice/authorize: grant_type makes a token request, decision a
    // consent submission, response_type (or the slash path) an authorization request.
    if (v.has('grant_type')) return handleTokenRequest(ctx, params, authorization, 'token');
    if (request.method === 'POST' && v.has('decision')) {
      return handleConsentSubmission(ctx, params, foreignOrigin(request));
    }
    if (endpoint === 'authorize' || v.has('response_type')) {
      return handleAuthorizationRequest(ctx, params);
    }
    return handleTokenRequest(ctx, params, authorization, 'token');
  }

  /** A service request once past any injected fault. Awaited once, by handle(). */
  function answer(request: MockRequest, path: string): MockResponse | Promise<MockResponse> {
    // SPEC §6 --proxy: everything but /_mock/ is the upstream's to answer, unchanged (`/_mock`
    // too stays local: the redirect to the dashboard's address with its slash).
    if (ctx.proxy && path !== '/_mock') return ctx.proxy.forward(request, path);
    return path.startsWith(API_PREFIX) ? api(request, path) : oauth(request, path);
  }

  /** A service request that meets an injected fault (POST /_mock/faults) for its path. */
  async function faulted(request: MockRequest, path: string, fault: Fault): Promise<MockResponse> {
    if (fault.kind === 'latency') {
      // A closing server answers now rather than cut the connection mid-wait and log an answer
      // that was never sent.
      await delay(fault.ms, undefined, closing ? { signal: closing } : {}).catch(() => undefined);
      return answer(request, path);
    }
    if (fault.kind === 'error') {
      return errorResponse(
        fault.status ?? 500,
        'server_error',
        'injected fault (POST /_mock/faults)',
      );
    }
    const reason = 'injected fault (POST /_mock/faults): connection dropped';
    return { status: 0, headers: {}, body: '', drop: true, note: { code: 'dropped', reason } };
  }

  /** A service request, after any injected fault for its path. */
  function serve(request: MockRequest, path: string): MockResponse | Promise<MockResponse> {
    // `/_mock` is the mock's own (the dashboard's redirect): a fault meant for the service
    // must not be spent on a browser opening the dashboard.
    const fault = path === '/_mock' ? undefined : faults.take(path);
    return fault === undefined ? answer(request, path) : faulted(request, path, fault);
  }

  /** A request's route: the control API, or a service request past any injected fault. */
  function route(
    request: MockRequest,
    path: string,
    control: boolean,
  ): MockResponse | Promise<MockResponse> {
    return control ? handleControl({ ctx, journal, faults }, request, path) : serve(request, path);
  }

  /** The answer to a route that threw or rejected. */
  function failed(error: unknown): MockResponse {
    if (error instanceof BodyTooLargeError) return tooLarge(error.limit);
    // Not a fault of the mock: journaled as a connection that ended unanswered, like a drop.
    if (error instanceof ClientGoneError) {
      const note = { code: error.code, reason: error.message };
      return { status: error.status, headers: {}, body: '', drop: true, note };
    }
    // A fixtures problem found late (a computed method that fails to load) is the mock's fault,
    // not the client's; its message says what to fix.
    if (error instanceof UsageError) return errorResponse(500, 'server_error', error.message);
    const message = error instanceof Error ? error.message : String(error);
    log?.(`internal error: ${message}`);
    return {
      status: 500,
      headers: { 'content-type': JSON_TYPE },
      body: INTERNAL_ERROR_BODY,
      note: { code: 'server_error', reason: `internal error in the mock: ${message}` },
    };
  }

  /** The journal and the log take the answer on its way out; `own`: a path of the mock's own. */
  function finish(
    request: MockRequest,
    response: MockResponse,
    started: number,
    own: boolean,
  ): MockResponse {
    if (response.status >= 400 && response.note?.code === undefined) explainFromBody(response);
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    const received = own ? undefined : request.receivedBody;
    const record: JournalRecord = {
      seq: 0,
      time: state.now(),
      method: request.method,
      path: request.path,
      query: request.query,
      status: response.status,
      durationMs,
      note: response.note,
      body: bodyExcerpt(received),
      bodySize: received?.byteLength ?? 0,
      authorization: received === undefined ? undefined : request.header('authorization'),
    };
    if (!own) journal.add(record);
    // Control reads (the dashboard polls the journal) would drown the log; changes are logged.
    const read = request.method === 'GET' || request.method === 'HEAD';
    if ((onRequest || requestLog) && !(own && read)) {
      const entry = maskEntry(toEntry(record), ctx.proxy?.maskText);
      if (onRequest) onRequest(entry);
      else requestLog!(formatLogLine(entry));
    }
    return response;
  }

  // Not an async function: a proxied request (the mock's hot path under --proxy) settles with the
  // upstream's promise plus one `then`, without an async frame and its extra promise around it.
  return function handle(request: MockRequest): Promise<MockResponse> {
    const started = performance.now();
    let path = request.path;
    if (basePath !== '') {
      if (path === basePath || path.startsWith(`${basePath}/`)) {
        path = path.slice(basePath.length) || '/';
      } else {
        const response = notFound(`no endpoint ${path}`);
        return Promise.resolve(finish(request, response, started, path.startsWith('/_mock/')));
      }
    }
    const control = path.startsWith('/_mock/');
    // `/_mock` (the dashboard's address without its slash) is answered as a service path (a
    // redirect, which --proxy keeps local) but is the mock's own, not the service's: not journaled.
    const own = control || path === '/_mock';
    let outcome: MockResponse | Promise<MockResponse>;
    try {
      const pending = loading();
      outcome = pending
        ? pending.then(() => route(request, path, control))
        : route(request, path, control);
    } catch (error) {
      outcome = failed(error);
    }
    if (outcome instanceof Promise) {
      return outcome.then(
        (response) => finish(request, response, started, own),
        (error: unknown) => finish(request, failed(error), started, own),
      );
    }
    return Promise.resolve(finish(request, outcome, started, own));
  };
}
