import type { MockContext } from '../core/context.js';
import type { MockResponse } from '../core/types.js';
import { jsonResponse, methodNotAllowed, notFound } from '../core/responses.js';

/** A grant as GET /_mock/grants shows it: who, for which client and scope, until when. */
export interface GrantView {
  id: number;
  user: string;
  client: string;
  scopes: string[];
  /** Virtual-clock expiry of the live access token, or null when it is gone (expired, revoked). */
  accessExpiresAt: string | null;
  /** Until when the live refresh token can be used, or null. */
  refreshExpiresAt: string | null;
}

function iso(ms: number | undefined, now: number): string | null {
  return ms === undefined || ms <= now ? null : new Date(ms).toISOString();
}

/** The grants with a live token, newest first; expired ones are swept first. */
function listGrants(ctx: MockContext): GrantView[] {
  const { state } = ctx;
  state.sweep();
  const now = state.now();
  const out: GrantView[] = [];
  for (const [id, g] of state.grants) {
    out.push({
      id,
      user: g.user,
      client: g.clientId,
      scopes: g.scopes,
      accessExpiresAt: g.access === undefined ? null : iso(g.accessExpiresAt, now),
      refreshExpiresAt: g.refresh === undefined ? null : iso(g.refreshExpiresAt, now),
    });
  }
  return out.reverse();
}

/**
 * `GET /_mock/grants` lists the grants; `DELETE /_mock/grants/<id>` revokes one, every token of it
 * at once, as a replayed code would (SPEC §8: the dashboard's Revoke).
 */
export function handleGrants(ctx: MockContext, method: string, path: string): MockResponse {
  if (path === '/_mock/grants') {
    return method === 'GET'
      ? jsonResponse(200, { grants: listGrants(ctx) })
      : methodNotAllowed('GET');
  }
  const id = /^\/_mock\/grants\/([1-9][0-9]{0,15})$/.exec(path)?.[1];
  if (id === undefined) return notFound(`no control endpoint ${path}`);
  if (method !== 'DELETE') return methodNotAllowed('DELETE');
  const grantId = Number(id);
  if (!ctx.state.grants.has(grantId)) return notFound(`no grant ${id}`);
  ctx.state.revokeGrant(grantId, `revoked at the mock (DELETE /_mock/grants/${id})`);
  return jsonResponse(200, { revoked: grantId });
}
