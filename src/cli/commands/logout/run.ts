import type { ServiceOptions } from '../../service-options.js';
import { DasvcError, sameKind } from '../../../errors.js';
import { DEFAULT_PROFILE } from '../../../store/profile-store.js';
import { revokeFailureReason } from '../../../client/logout.js';
import { openClient, type CliDeps } from '../../context.js';
import { hintFor } from '../../hints/hint-for.js';

/** Options of `dasvc logout` (SPEC §3). */
export type LogoutOptions = ServiceOptions & { forget?: boolean };

/**
 * `dasvc logout` (SPEC §3): revoke the access token, then the refresh token (Client.logout), then
 * forget both locally. A revocation that fails keeps the tokens and is the command's error, with
 * the `--forget` hint; `--forget` forgets them anyway. Idempotent: logging out twice is no error.
 */
export async function run(options: LogoutOptions, deps: CliDeps): Promise<void> {
  const client = openClient(options, deps);
  const outcome = await client.logout({ forget: options.forget === true }).catch((error) => {
    throw withForgetHint(error, client.profileName());
  });
  const name = outcome.profile;
  if (!outcome.loggedIn) {
    if (deps.out.json)
      deps.out.result({ profile: name, loggedIn: false, revoked: {}, forgotten: false });
    deps.out.info(`Not logged in (profile ${name}); nothing to do.`);
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

/** A logout that kept the tokens (SPEC §3), with the next step: `--forget`. Other errors pass. */
function withForgetHint(error: unknown, name: string): unknown {
  const kept = error instanceof DasvcError && error.facts.keptTokens === true;
  if (!kept) return error;
  const forget = `dasvc logout${name === DEFAULT_PROFILE ? '' : ` --profile ${name}`} --forget`;
  // A client the service did not accept is fixed first: its secret (the hint says where it came from).
  const cause =
    error.cause instanceof DasvcError && error.cause.code === 'invalid_client'
      ? hintFor(error.cause)
      : undefined;
  return sameKind(error, error.message, {
    facts: error.facts,
    hint: `${cause ? `${cause}; or ` : ''}${forget} deletes them locally anyway`,
    cause: error.cause,
  });
}
