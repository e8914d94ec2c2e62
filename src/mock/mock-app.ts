import { UsageError } from '../errors.js';
import { parseDuration } from '../util/duration.js';
import { redactQuery } from '../util/redact.js';
import type { MockContext } from './context.js';
import type { MockOptions, MockRequest, MockResponse } from './types.js';
import { BODY_LIMIT, BodyTooLargeError, MAX_SECONDS } from './types.js';
import { handleApiRequest } from './api-route.js';
import { handleAuthorizationRequest, handleConsentSubmission } from './authorize-route.js';
import { handleControl } from './control-routes.js';
import { FaultQueue } from './faults.js';
import { loadFixtures, loadHandlers } from './fixtures.js';
import { Journal } from './journal.js';
import { MockState } from './mock-state.js';
import { parseOAuthParams } from './oauth-params.js';
import { jsonResponse, methodNotAllowed, notFound, tooLarge } from './responses.js';
import { loadStateFile, StateFileWriter } from './state-file.js';
import { handleRevokeRequest, handleTokenRequest } from './token-route.js';

/** The mock as one handler over MockRequest, plus what the adapters need around it. */
export interface MockCore {
  handle(request: MockRequest): Promise<MockResponse>;
  /** Loads the JS modules of computed methods; rejects with a usage error naming the file. */
  ready(): Promise<void>;
  /** Writes the state file, if any. */
  close(): Promise<void>;
  readonly ctx: MockContext;
}

const API_PREFIX = '/webservice/json/';

/** A TTL option: a duration of at least 1 s (a 0 s token would be born expired), at most 100 years. */
function parseLifetime(input: string | number, flag: string): number {
  const seconds = parseDuration(input, flag);
  if (!(seconds >= 1 && seconds <= MAX_SECONDS)) {
    throw new UsageError(`${flag} must be between 1s and 100 years, got ${String(input)}`, {
      code: 'bad_duration',
    });
  }
  return seconds;
}

/** Builds the mock from its options (SPEC §3 `dasvc mock` flags); JSON fixtures load at once. */
export function createMockCore(options: MockOptions = {}): MockCore {
  const lifetimes = {
    codeSeconds: parseLifetime(options.codeTtl ?? '1h', '--code-ttl'),
    accessSeconds: parseLifetime(options.accessTtl ?? '1h', '--access-ttl'),
    refreshSeconds: parseLifetime(options.refreshTtl ?? '30d', '--refresh-ttl'),
  };
  const fixtures = loadFixtures(options.fixtures);
  if (options.autoApprove !== undefined && !fixtures.users.has(options.autoApprove)) {
    throw new UsageError(`--auto-approve: unknown user "${options.autoApprove}"`, {
      code: 'unknown_user',
      hint: `users in the fixtures: ${[...fixtures.users.keys()].join(', ')}`,
    });
  }
  const state = new MockState(lifetimes, options.now ?? Date.now);
  let writer: StateFileWriter | undefined;
  if (options.stateFile !== undefined) {
    const snapshot = loadStateFile(options.stateFile);
    if (snapshot) state.restore(snapshot);
    const file = options.stateFile;
    writer = new StateFileWriter(
      file,
      () => state.snapshot(),
      50,
      (error) => options.log?.(`state file ${file}: write failed: ${(error as Error).message}`),
    );
    state.onChange = () => writer!.schedule();
  }
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const ctx: MockContext = { fixtures, state, autoApprove: options.autoApprove, basePath };
  const journal = new Journal();
  const faults = new FaultQueue();
  const needsLoading = [...fixtures.instances.values()].some((i) =>
    [...i.methods.values()].some((m) => m.handlerRef !== undefined),
  );
  let loading: Promise<void> | undefined;
  let loaded = !needsLoading;
  const ready = () => {
    loading ??= loadHandlers(fixtures).then(() => {
      loaded = true;
    });
    return loading;
  };

  async function route(request: MockRequest, path: string): Promise<MockResponse> {
    if (path.startsWith(API_PREFIX)) {
      let instance = path.slice(API_PREFIX.length);
      if (instance.endsWith('/')) instance = instance.slice(0, -1);
      try {
        instance = decodeURIComponent(instance);
      } catch {
        return notFound('malformed instance name');
      }
      if (instance === '' || instance.includes('/')) return notFound(`no endpoint ${path}`);
      return handleApiRequest(ctx, request, instance);
    }
    const endpoint = OAUTH_PATHS.get(path);
    if (endpoint === undefined) return notFound(`no endpoint ${path}`);
    if (request.method !== 'GET' && request.method !== 'POST') return methodNotAllowed('GET, POST');
    const body = request.method === 'POST' ? await request.text(BODY_LIMIT) : '';
    const params = parseOAuthParams(request.query, body, request.header('content-type') ?? '');
    const authorization = request.header('authorization');
    if (endpoint === 'refresh') return handleTokenRequest(ctx, params, authorization, 'refresh');
    if (endpoint === 'revoke') return handleRevokeRequest(ctx, params, authorization);
    // Both spellings of /webservice/authorize: grant_type makes a token request, decision a
    // consent submission, response_type (or the slash path) an authorization request.
    const v = params.values;
    if (v.has('grant_type')) return handleTokenRequest(ctx, params, authorization, 'token');
    if (request.method === 'POST' && v.has('decision')) {
      return handleConsentSubmission(ctx, params);
    }
    if (endpoint === 'authorize' || v.has('response_type')) {
      return handleAuthorizationRequest(ctx, params);
    }
    return handleTokenRequest(ctx, params, authorization, 'token');
  }

  async function handle(request: MockRequest): Promise<MockResponse> {
    const started = performance.now();
    let path = request.path;
    let response: MockResponse | undefined;
    if (basePath !== '') {
      if (path === basePath || path.startsWith(`${basePath}/`))
        path = path.slice(basePath.length) || '/';
      else response = notFound(`no endpoint ${path}`);
    }
    const control = path.startsWith('/_mock/');
    try {
      if (!loaded) await ready();
      if (response) {
        // already answered
      } else if (control) {
        response = await handleControl({ ctx, journal, faults }, request, path);
      } else {
        const fault = faults.take(path);
        if (fault?.kind === 'latency') await new Promise((r) => setTimeout(r, fault.ms));
        if (fault?.kind === 'error') {
          response = jsonResponse(fault.status ?? 500, {
            error: 'server_error',
            error_description: 'injected fault (POST /_mock/faults)',
          });
        } else if (fault?.kind === 'drop') {
          response = { status: 0, headers: {}, body: '', drop: true };
        } else {
          response = await route(request, path);
        }
      }
    } catch (error) {
      if (error instanceof BodyTooLargeError) response = tooLarge(error.limit);
      else if (error instanceof UsageError)
        response = jsonResponse(500, { error: 'server_error', error_description: error.message });
      else {
        options.log?.(`internal error: ${error instanceof Error ? error.message : String(error)}`);
        response = jsonResponse(500, {
          error: 'server_error',
          error_description: 'internal error in the mock',
        });
      }
    }
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    if (!control) {
      journal.add({
        time: state.now(),
        method: request.method,
        path: request.path,
        query: request.query,
        status: response.status,
        durationMs,
      });
    }
    if (options.log) {
      const query = request.query === '' ? '' : redactQuery(request.query);
      const status = response.drop ? 'dropped' : String(response.status);
      options.log(
        `${request.method} ${request.path}${query === '' ? '' : `?${query}`} ${status} ${durationMs.toFixed(1)}ms`,
      );
    }
    return response;
  }

  return { handle, ready, close: async () => writer?.flush(), ctx };
}

const OAUTH_PATHS = new Map<string, 'authorize' | 'token' | 'refresh' | 'revoke'>([
  ['/webservice/authorize/', 'authorize'],
  ['/webservice/authorize', 'token'],
  ['/webservice/authorize/refresh_token', 'refresh'],
  ['/webservice/authorize/refresh_token/', 'refresh'],
  ['/webservice/authorize/revoke', 'revoke'],
  ['/webservice/authorize/revoke/', 'revoke'],
]);
