import type { ServiceOptions } from '../../service-options.js';
import { revokeFailureReason } from '../../../client/logout.js';
import { openClient, type CliDeps } from '../../context.js';

/** Options of `dasvc logout` (SPEC §3). */
export type LogoutOptions = ServiceOptions & { forget?: boolean };

/**
 * `dasvc logout` (SPEC §3): revoke the access token, then the refresh token (Client.logout), then
 * forget both locally. A revocation that fails keeps the tokens and is the command's error (its
 * hint names `--forget`, src/cli/hints/); `--forget` forgets them anyway. Idempotent: logging
 * out twice is no error.
 */
export async function run(options: LogoutOptions, deps: CliDeps): Promise<void> {
  const client = openClient(options, deps);
  const outcome = await client.logout({ forget: options.forget === true });
  const name = outcome.profile;
  if (!outcome.loggedIn) {
    const { forgotten } = outcome;
    if (deps.out.json) deps.out.result({ profile: name, loggedIn: false, revoked: {}, forgotten });
    deps.out.info(
      `Not logged in (profile ${name}); ${forgotten ? 'its client secret is forgotten' : 'nothing to do'}.`,
    );
    return;
  }
  for (const { kind, error } of outcome.failures) {
    if (kind === 'all')
      deps.out.warn(
        `could not revoke at the service (${error.message}); forgetting the tokens locally only`,
      );
    else
      deps.out.warn(
        `could not revoke the ${kind} (${revokeFailureReason(error)}: ${error.message})`,
      );
  }
  const { revoked } = outcome;
  if (deps.out.json) deps.out.result({ profile: name, revoked, forgotten: true });
  const all = Object.values(revoked).length > 0 && Object.values(revoked).every(Boolean);
  deps.out.success(
    all
      ? `Logged out: tokens of profile ${name} revoked at the service and forgotten`
      : `Logged out locally: tokens of profile ${name} forgotten, but not (all) revoked at the service`,
  );
}
