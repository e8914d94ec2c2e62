import type { MockContext } from '../core/context.js';
import type { MockRequest, MockResponse, RequestNote } from '../core/types.js';
import { BODY_LIMIT } from '../core/types.js';
import { processJsonRpcBytes, serialiseRpc, type RpcTrace } from './json-rpc.js';
import {
  errorResponse,
  explain,
  JSON_TYPE,
  methodNotAllowed,
  notFound,
} from '../core/responses.js';
import { invokeMethod, invokeOverride, methodNotFound } from './rpc-methods.js';
import { noteRpcCalls } from '../core/rpc-note.js';

const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * RFC 6750 §3 challenge exactly as SPEC §5 writes it: `Bearer error="invalid_token"` (401) or
 * `Bearer error="insufficient_scope"` (403); the description is in the JSON body only.
 */
function bearerError(status: 401 | 403, error: string, description: string): MockResponse {
  return errorResponse(status, error, description, {
    'www-authenticate': `Bearer error="${error}"`,
  });
}

/**
 * API endpoint (SERVICE.md 4.5): POST only, unknown instance 404, then the bearer token
 * (RFC 6750 §3: 401 invalid_token, 403 insufficient_scope), then JSON-RPC 2.0.
 */
export async function handleApiRequest(
  ctx: MockContext,
  request: MockRequest,
  instanceName: string,
): Promise<MockResponse> {
  if (request.method !== 'POST') return methodNotAllowed('POST');
  const instance = ctx.fixtures.instances.get(instanceName);
  if (!instance) return notFound(`unknown instance "${instanceName}"`);
  const header = request.header('authorization');
  if (header === undefined) return bearerError(401, 'invalid_token', 'missing bearer access token');
  const token = BEARER.exec(header)?.[1];
  const auth = token === undefined ? undefined : ctx.state.authenticate(token);
  if (!auth) {
    // The answer stays the same for every cause (RFC 6750 §3.1); the log says which it was.
    const refused = bearerError(401, 'invalid_token', 'unknown, expired or revoked access token');
    if (token === undefined)
      return explain(refused, { reason: 'Authorization header is not "Bearer <token>"' });
    const live = ctx.state.liveToken(token);
    if (live?.kind === 'refresh') {
      const grant = ctx.state.grantOf(live);
      return explain(refused, {
        reason: 'a refresh token was sent as the access token',
        ...(grant ? { user: grant.user, client: grant.clientId } : {}),
      });
    }
    return explain(refused, ctx.state.refusal(token, 'access'));
  }
  const note: RequestNote = { user: auth.user, client: auth.clientId };
  if (!auth.scopes.includes(instanceName)) {
    return explain(
      bearerError(403, 'insufficient_scope', `the token was not granted scope ${instanceName}`),
      note,
    );
  }
  const body = await request.bytes(BODY_LIMIT);
  // Only rpc.discover names the server: the origin is read for it alone.
  const url = () => `${request.origin}${ctx.basePath}/webservice/json/${instanceName}`;
  const trace: RpcTrace = { methods: [], errors: [] };
  const overrides = ctx.methods?.get(instanceName);
  const reply = processJsonRpcBytes(
    body,
    (method, params) => {
      if (method === 'rpc.discover' && ctx.quirks.rpcDiscover === false)
        return methodNotFound(instance, method); // the rpcDiscover quirk (SPEC §7)
      const override = overrides?.get(method);
      return override
        ? invokeOverride(instance, override, auth.user, method, params)
        : invokeMethod(instance, auth.user, url, method, params);
    },
    trace,
  );
  // Static results answer synchronously: no promise to wait for.
  const response = reply instanceof Promise ? ((await reply) as unknown) : reply;
  noteRpcCalls(note, trace.methods, trace.errors);
  if (response === undefined) return explain({ status: 204, headers: {}, body: '' }, note);
  return explain(
    { status: 200, headers: { 'content-type': JSON_TYPE }, body: serialiseRpc(response) },
    note,
  );
}
