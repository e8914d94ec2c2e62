import { DasvcError, NetworkError } from '../../errors.js';
import type { TokenTypeHint } from '../../oauth/token-request.js';
import { forgetTokens, usableAccessToken } from '../../store/session.js';
import type { CliContext } from '../context.js';
import { loadProfile } from './common.js';
import { revokeToken } from './revoke.js';
import { revokeTarget } from './token.js';

/**
 * `dasvc logout` (SPEC §3): revoke the refresh token, then the access token (best effort; each failure
 * is said), then forget both locally. Idempotent: logging out twice is not an error.
 */
export async function logoutRun(ctx: CliContext): Promise<void> {
  const view = loadProfile(ctx);
  const tokens = view.profile?.tokens;
  if (!view.profile || !tokens) {
    if (ctx.out.json)
      ctx.out.result({ profile: view.name, loggedIn: false, revoked: {}, forgotten: false });
    ctx.out.info(`Not logged in (profile ${view.name}); nothing to do.`);
    return;
  }
  const revoked: Record<string, boolean> = {};
  const pairs: [TokenTypeHint, string | null][] = [
    ['refresh_token', tokens.refreshToken],
    ['access_token', usableAccessToken(tokens)],
  ];
  let target;
  try {
    target = revokeTarget(ctx, view.profile);
  } catch (error) {
    ctx.out.warn(
      `could not revoke at the service (${(error as Error).message}); forgetting the tokens locally only`,
    );
  }
  for (const [kind, token] of pairs) {
    if (!token || !target) continue;
    try {
      await revokeToken(ctx.send, target, token, kind);
      revoked[kind] = true;
    } catch (error) {
      if (!(error instanceof DasvcError)) throw error;
      revoked[kind] = false;
      const why =
        error instanceof NetworkError ? 'the service could not be reached' : 'the service refused';
      ctx.out.warn(`could not revoke the ${kind} (${why}: ${error.message})`);
    }
  }
  await forgetTokens(ctx.store, view.name, 'all');
  if (ctx.out.json) ctx.out.result({ profile: view.name, revoked, forgotten: true });
  const all = Object.values(revoked).length > 0 && Object.values(revoked).every(Boolean);
  ctx.out.success(
    all
      ? `Logged out: tokens of profile ${view.name} revoked at the service and forgotten`
      : `Logged out locally: tokens of profile ${view.name} forgotten, but not (all) revoked at the service`,
  );
}
