import { foreignOrigin } from '../core/foreign-origin.js';
import type { MockContext } from '../core/context.js';
import { maskEntry, type Journal } from '../core/journal.js';
import type { MockRequest, MockResponse } from '../core/types.js';
import { BODY_LIMIT, MAX_SECONDS } from '../core/types.js';
import { FaultQueue } from '../core/faults.js';
import { parseDuration } from '../../util/duration.js';
import { isObject } from '../../util/guards.js';
import {
  errorResponse,
  explain,
  jsonResponse,
  methodNotAllowed,
  notFound,
} from '../core/responses.js';
import { handleGrants } from './control-grants.js';
import { scopeList } from './scope-list.js';
import { dashboardResponse } from './dashboard.js';
import { tokenResponse } from './token.js';
import { invalidClient } from './client-auth.js';
import { parseQuirks } from '../core/quirks.js';
import { UsageError } from '../../errors.js';

/** The control side of the mock: journal, faults, and what resets them. */
export interface ControlDeps {
  ctx: MockContext;
  journal: Journal;
  faults: FaultQueue;
}

function badRequest(description: string, error = 'invalid_request'): MockResponse {
  return errorResponse(400, error, description);
}

/** `after` and `limit` of GET /_mock/journal: non-negative integers, or undefined when absent. */
function journalQuery(query: string): { after?: number; limit?: number } | string {
  const params = new URLSearchParams(query);
  const out: { after?: number; limit?: number } = {};
  for (const name of ['after', 'limit'] as const) {
    const text = params.get(name);
    if (text === null) continue;
    if (!/^[0-9]{1,15}$/.test(text)) return `${name} must be a non-negative integer`;
    out[name] = Number(text);
  }
  return out;
}

async function readJson(request: MockRequest): Promise<unknown> {
  const text = await request.text(BODY_LIMIT);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return Symbol.for('bad-json');
  }
}

function clock(ctx: MockContext): MockResponse {
  return jsonResponse(200, {
    now: new Date(ctx.state.now()).toISOString(),
    offsetSeconds: ctx.state.offsetSeconds,
  });
}

/** `/_mock/*` (SPEC §5 control endpoints): JSON in, JSON out. */
export async function handleControl(
  deps: ControlDeps,
  request: MockRequest,
  path: string,
): Promise<MockResponse> {
  const { ctx, journal, faults } = deps;
  const method = request.method;
  if (request.loopbackHost === false) {
    return errorResponse(
      403,
      'forbidden',
      `the control API of a mock listening on loopback answers to 127.0.0.1, localhost or [::1] only, not to ${request.authority ?? request.header('host') ?? ''} (DNS rebinding)`,
    );
  }
  const from = method === 'GET' ? undefined : foreignOrigin(request);
  if (from !== undefined) {
    return errorResponse(
      403,
      'forbidden',
      `control requests from another origin (${from}) are refused`,
    );
  }
  const body = method === 'POST' ? await readJson(request) : undefined;
  if (body === Symbol.for('bad-json')) return badRequest('body is not valid JSON');
  switch (path) {
    case '/_mock/':
      return method === 'GET' ? dashboardResponse() : methodNotAllowed('GET');
    case '/_mock/journal':
      if (method === 'GET') {
        const q = journalQuery(request.query);
        if (typeof q === 'string') return badRequest(q);
        // Masked as it is read: a secret learned since a request passed is masked in it too.
        const entries = journal
          .list(q.after, q.limit)
          .map((e) => maskEntry(e, ctx.proxy?.maskText));
        return jsonResponse(200, { entries, ...journal.info() });
      }
      if (method === 'DELETE') {
        journal.clear();
        return jsonResponse(200, { entries: [] });
      }
      return methodNotAllowed('GET, DELETE');
    case '/_mock/reset':
      if (method !== 'POST') return methodNotAllowed('POST');
      ctx.state.reset();
      journal.clear();
      faults.clear();
      ctx.proxy?.violations?.clear();
      return jsonResponse(200, { reset: true });
    case '/_mock/clock': {
      if (method === 'GET') return clock(ctx);
      if (method !== 'POST') return methodNotAllowed('GET, POST');
      const advance = isObject(body) ? body.advance : undefined;
      if (typeof advance !== 'string' && typeof advance !== 'number') {
        return badRequest('body must be {"advance": "1h"} or {"advance": 3600}');
      }
      let seconds: number;
      try {
        seconds = parseDuration(advance, 'advance');
      } catch (error) {
        return badRequest((error as Error).message);
      }
      // Checked before anything moves: the clock (and every date derived from it) stays valid.
      if (!(seconds >= 0 && ctx.state.offsetSeconds + seconds <= MAX_SECONDS)) {
        return badRequest('advance must be a duration of at most 100 years in all');
      }
      ctx.state.advance(seconds);
      return clock(ctx);
    }
    case '/_mock/tokens':
      if (method !== 'POST') return methodNotAllowed('POST');
      return mint(ctx, body);
    case '/_mock/faults': {
      if (method === 'GET') return jsonResponse(200, { faults: faults.list() });
      if (method === 'DELETE') {
        faults.clear();
        return jsonResponse(200, { faults: [] });
      }
      if (method !== 'POST') return methodNotAllowed('GET, POST, DELETE');
      const fault = FaultQueue.parse(body);
      if (typeof fault === 'string') return badRequest(fault);
      faults.add(fault);
      return jsonResponse(200, { faults: faults.list() });
    }
    case '/_mock/violations': {
      // SPEC §6 --validate: the contract violations seen, secrets masked ([] without --validate).
      const violations = ctx.proxy?.violations;
      if (method === 'GET') return jsonResponse(200, violations?.list() ?? []);
      if (method === 'DELETE') {
        violations?.clear();
        return jsonResponse(200, []);
      }
      return methodNotAllowed('GET, DELETE');
    }
    case '/_mock/warnings':
      // SPEC §6: the example pairings that contradict their schemas, each with file and pointer.
      return method === 'GET' ? jsonResponse(200, ctx.fixtures.warnings) : methodNotAllowed('GET');
    case '/_mock/quirks':
      if (method === 'GET') return jsonResponse(200, ctx.quirks);
      if (method !== 'POST') return methodNotAllowed('GET, POST');
      return replaceQuirks(ctx, body);
    default:
      if (path === '/_mock/grants' || path.startsWith('/_mock/grants/')) {
        return handleGrants(ctx, method, path);
      }
      return notFound(`no control endpoint ${path}`);
  }
}

/** POST /_mock/quirks (SPEC §7): the body replaces every quirk; `{}` brings back SPEC §5. */
function replaceQuirks(ctx: MockContext, body: unknown): MockResponse {
  try {
    ctx.quirks = parseQuirks(body, 'POST /_mock/quirks');
  } catch (error) {
    if (error instanceof UsageError) return badRequest(error.message);
    throw error;
  }
  return jsonResponse(200, ctx.quirks);
}

/** POST /_mock/tokens: a token pair for a user and scope without a browser. */
function mint(ctx: MockContext, body: unknown): MockResponse {
  if (!isObject(body)) return badRequest('body must be {"user", "scope", "client_id"?}');
  const { user, scope } = body;
  // Fixtures of one's own may have no demo-client: then their first client, as listed.
  const clientId =
    body.client_id ??
    (ctx.fixtures.clients.has('demo-client')
      ? 'demo-client'
      : (ctx.fixtures.clients.keys().next().value ?? 'demo-client'));
  if (typeof user !== 'string') return badRequest('missing member: user');
  if (typeof scope !== 'string') return badRequest('missing member: scope');
  if (typeof clientId !== 'string') return badRequest('client_id must be a string');
  // The log line and the journal name the user and client, as for a token request (SPEC §8).
  return explain(mintFor(ctx, user, scope, clientId), { user, client: clientId });
}

function mintFor(ctx: MockContext, user: string, scope: string, clientId: string): MockResponse {
  const fixtureUser = ctx.fixtures.users.get(user);
  if (!fixtureUser) return badRequest(`unknown user "${user}"`);
  if (!ctx.fixtures.clients.has(clientId)) return invalidClient(`unknown client "${clientId}"`);
  const { scopes, unknown } = scopeList(scope, ctx.fixtures.instances);
  if (scopes.length === 0) return badRequest('scope names no instance', 'invalid_scope');
  if (unknown !== undefined) return badRequest(`unknown instance "${unknown}"`, 'invalid_scope');
  const denied = scopes.find((s) => !fixtureUser.instances.has(s));
  if (denied !== undefined) {
    return badRequest(`user ${user} cannot access instance "${denied}"`, 'invalid_scope');
  }
  return tokenResponse(ctx.state.mint({ clientId, user, scopes }), ctx.quirks);
}
