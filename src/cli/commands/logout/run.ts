import { DasvcError, NetworkError } from '../../../errors.js';
import type { TokenTypeHint } from '../../../oauth/token-request.js';
import { forgetTokens, usableAccessToken } from '../../../store/session.js';
import type { CliDeps } from '../../context.js';
import { loadProfile } from '../../token-state.js';
import { revokeTarget, revokeToken } from '../../revoke-token.js';
import type { LogoutOptions } from './command.js';

/**
 * `dasvc logout` (SPEC §3): revoke the access token, then the refresh token (best effort; each failure
 * is said), then forget both locally. Idempotent: logging out twice is not an error.
 */
export async function run(options: LogoutOptions, deps: CliDeps): Promise<void> {
  const view = loadProfile(deps);
  const tokens = view.profile?.tokens;
  if (!view.profile || !tokens) {
    if (deps.out.json)
      deps.out.result({ profile: view.name, loggedIn: false, revoked: {}, forgotten: false });
    deps.out.info(`Not logged in (profile ${view.name}); nothing to do.`);
    return;
  }
  const revoked: Record<string, boolean> = {};
  // The access token first: revoking the refresh token often ends it too, and an installation
  // that refuses unknown tokens (the revokeUnknownToken quirk, SPEC §7) would then refuse it.
  const pairs: [TokenTypeHint, string | null][] = [
    ['access_token', usableAccessToken(tokens)],
    ['refresh_token', tokens.refreshToken],
  ];
  let target;
  try {
    target = revokeTarget(options, deps, view.profile);
  } catch (error) {
    deps.out.warn(
      `could not revoke at the service (${(error as Error).message}); forgetting the tokens locally only`,
    );
  }
  for (const [kind, token] of pairs) {
    if (!token || !target) continue;
    try {
      await revokeToken(deps.send, target, token, kind);
      revoked[kind] = true;
    } catch (error) {
      if (!(error instanceof DasvcError)) throw error;
      revoked[kind] = false;
      const why =
        error instanceof NetworkError ? 'the service could not be reached' : 'the service refused';
      deps.out.warn(`could not revoke the ${kind} (${why}: ${error.message})`);
    }
  }
  await forgetTokens(deps.store, view.name, 'all');
  if (deps.out.json) deps.out.result({ profile: view.name, revoked, forgotten: true });
  const all = Object.values(revoked).length > 0 && Object.values(revoked).every(Boolean);
  deps.out.success(
    all
      ? `Logged out: tokens of profile ${view.name} revoked at the service and forgotten`
      : `Logged out locally: tokens of profile ${view.name} forgotten, but not (all) revoked at the service`,
  );
}
