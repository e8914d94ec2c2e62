import { AuthError } from '../../../errors.js';
import { canRefresh } from '../../../store/expiry.js';
import { loginHint, notLoggedIn } from '../../../store/session.js';
import { describeSecretsLocation, secretsLocation } from '../../../store/profile-secrets.js';
import type { CliDeps } from '../../context.js';
import { stdoutAnswered } from '../../output.js';
import {
  accessRevoked,
  describeExpiry,
  loadProfile,
  sessionUsable,
  tokenStateJson,
} from '../../token-state.js';
import type { TokenOptions } from './command.js';

/** `dasvc token status` (SPEC §3): exit 3 when not logged in or when the session can no longer be used. */
export async function run(_options: TokenOptions, deps: CliDeps): Promise<void> {
  const { name, profile } = loadProfile(deps);
  const tokens = profile?.tokens;
  if (!profile || !tokens) throw notLoggedIn(name);
  const now = deps.now();
  const revoked = accessRevoked(tokens);
  const refreshable = canRefresh(tokens, now);
  if (deps.out.json) {
    deps.out.result(tokenStateJson(name, profile, tokens, now));
  } else {
    const refresh = refreshable
      ? 'possible'
      : tokens.refreshToken === null
        ? 'not possible (no refresh token)'
        : 'not possible (the access token has expired)';
    const access = revoked
      ? `access token revoked; refresh ${refresh}`
      : describeExpiry(tokens, now);
    deps.out.line(`profile:   ${name}`);
    deps.out.line(`base URL:  ${profile.baseUrl ?? '(none)'}`);
    deps.out.line(`client id: ${profile.clientId ?? '(none)'}`);
    deps.out.line(`scope:     ${profile.scope ?? '(none)'}`);
    deps.out.line(`access:    ${access}`);
    deps.out.line(`refresh:   ${refresh}`);
    deps.out.line(
      `storage:   ${describeSecretsLocation(secretsLocation(profile), deps.store.file)}`,
    );
  }
  if (!sessionUsable(tokens, now)) {
    throw stdoutAnswered(
      revoked
        ? new AuthError(
            `the access token of profile ${name} was revoked and cannot be replaced by a refresh`,
            { code: 'revoked', hint: loginHint(name) },
          )
        : new AuthError(`the session of profile ${name} has expired`, {
            code: 'expired',
            hint: loginHint(name),
          }),
    );
  }
}
