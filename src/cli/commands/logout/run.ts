import type { DasvcError, DasvcErrorOptions } from '../../../errors.js';
import { DEFAULT_PROFILE } from '../../../store/profile-store.js';
import { revokeFailureReason } from '../../../client/client.js';
import { openClient, type CliDeps } from '../../context.js';
import type { LogoutOptions } from './command.js';

/**
 * `dasvc logout` (SPEC §3): revoke the refresh token, then the access token (best effort; each failure
 * is said), then forget both locally. Idempotent: logging out twice is not an error.
 */
export async function run(options: LogoutOptions, deps: CliDeps): Promise<void> {
  const outcome = await openClient(options, deps).logout({ forget: options.forget === true });
  const name = outcome.profile;
  if (!outcome.loggedIn) {
    if (deps.out.json)
      deps.out.result({ profile: name, loggedIn: false, revoked: {}, forgotten: false });
    deps.out.info(`Not logged in (profile ${name}); nothing to do.`);
    return;
  }
  if (!outcome.forgotten) {
    // SPEC §3: kept, since they may still be valid at the service; the failure's exit code.
    const first = outcome.failures[0]!.error;
    const Kind = first.constructor as new (message: string, o: DasvcErrorOptions) => DasvcError;
    const forget = `dasvc logout${name === DEFAULT_PROFILE ? '' : ` --profile ${name}`} --forget`;
    throw new Kind(
      `could not revoke the tokens of profile ${name} (${first.message}); they are kept, since they may still be valid at the service`,
      {
        ...(first.code === undefined ? {} : { code: first.code }),
        ...(first.status === undefined ? {} : { status: first.status }),
        hint: `${forget} deletes them locally anyway`,
        cause: first,
      },
    );
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
