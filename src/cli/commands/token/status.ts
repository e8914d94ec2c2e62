import { AuthError } from '../../../errors.js';
import { notLoggedIn } from '../../../client/session.js';
import { openClient, type CliDeps } from '../../context.js';
import { describeSecretsLocation } from '../../../store/profile-secrets.js';
import { stdoutAnswered } from '../../output.js';
import { describeExpiry } from '../../token-state.js';
import type { TokenOptions } from './command.js';

/** `dasvc token status` (SPEC §3): exit 3 when not logged in or when the session can no longer be used. */
export async function run(options: TokenOptions, deps: CliDeps): Promise<void> {
  const status = await openClient(options, deps).status();
  const name = status.profile;
  const tokens = status.loggedIn ? await deps.tokens.load(name) : undefined;
  if (!tokens) throw notLoggedIn(name);
  const now = deps.now();
  if (deps.out.json) {
    deps.out.result(status);
  } else {
    const refresh = status.refreshable
      ? 'possible'
      : tokens.refreshToken === null
        ? 'not possible (no refresh token)'
        : 'not possible (the access token has expired)';
    const access = status.revoked
      ? `access token revoked; refresh ${refresh}`
      : describeExpiry(tokens, now);
    deps.out.line(`profile:   ${name}`);
    deps.out.line(`base URL:  ${status.baseUrl ?? '(none)'}`);
    deps.out.line(`client id: ${status.clientId ?? '(none)'}`);
    deps.out.line(`scope:     ${status.scope ?? '(none)'}`);
    deps.out.line(`access:    ${access}`);
    deps.out.line(`refresh:   ${refresh}`);
    // The CLI's client always stores in the profiles file or the OS store, never in memory.
    if (status.storage !== 'memory')
      deps.out.line(`storage:   ${describeSecretsLocation(status.storage, deps.store.file)}`);
  }
  if (!status.usable) {
    const detail = { profile: name };
    throw stdoutAnswered(
      status.revoked
        ? new AuthError(
            `the access token of profile ${name} was revoked and cannot be replaced by a refresh`,
            { code: 'revoked', detail },
          )
        : new AuthError(`the session of profile ${name} has expired`, { code: 'expired', detail }),
    );
  }
}
