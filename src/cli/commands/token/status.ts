import { AuthError } from '../../../errors.js';
import { missingProfile, notLoggedIn } from '../../../client/session-errors.js';
import { openClient, type CliDeps } from '../../context.js';
import { describeSecretsLocation } from '../../../store/profile-secrets.js';
import type { StoredTokens } from '../../../schemas/config-file.js';
import { normalizeTokens } from '../../../store/token-store.js';
import { answeredWith } from '../../output.js';
import { describeExpiry } from '../../token-state.js';
import type { ServiceOptions } from '../../service-options.js';

/** What a person may conclude of a refusal the service does not explain. */
const REFUSED =
  "refused by the service (it may have expired on the service's clock or been revoked elsewhere)";

/** The refresh line: possible, or why not, in what the store knows. */
function refreshLine(tokens: StoredTokens, refreshable: boolean): string {
  if (refreshable) return 'possible';
  if (tokens.refreshToken !== null) return 'not possible (the access token has expired)';
  return tokens.refreshRefused
    ? 'not possible (the service refused the refresh token)'
    : 'not possible (no refresh token)';
}

/** `dasvc token status` (SPEC §3): exit 3 when not logged in or when the session can no longer be used. */
export async function run(options: ServiceOptions, deps: CliDeps): Promise<void> {
  const status = await openClient(options, deps).status();
  const name = status.profile;
  const tokens = normalizeTokens(status.loggedIn ? await deps.tokens.load(name) : undefined);
  if (!tokens) {
    const namedBy =
      deps.globals.profile !== undefined
        ? '--profile'
        : deps.env.DASVC_PROFILE
          ? 'DASVC_PROFILE'
          : undefined;
    throw notLoggedIn(name, missingProfile(name, deps.store.read(), namedBy));
  }
  const now = deps.now();
  const ended = tokens.accessToken === null ? (tokens.accessEnded ?? 'gone') : undefined;
  if (deps.out.json) {
    if (status.usable) deps.out.result(status);
  } else {
    const refresh = refreshLine(tokens, status.refreshable);
    const access =
      ended === 'refused'
        ? REFUSED
        : ended === 'revoked'
          ? `access token revoked; refresh ${refresh}`
          : ended === 'gone'
            ? `access token gone (revoked, or refused by the service); refresh ${refresh}`
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
    const facts = { profile: name };
    const error =
      ended === 'refused'
        ? new AuthError(
            `the service refused the session of profile ${name}: it may have expired on the service's clock or been revoked elsewhere`,
            { code: 'refused', facts },
          )
        : ended !== undefined
          ? new AuthError(
              `the access token of profile ${name} ${ended === 'revoked' ? 'was revoked' : 'is gone (revoked, or refused by the service)'} and cannot be replaced by a refresh`,
              { code: 'revoked', facts },
            )
          : new AuthError(`the session of profile ${name} has expired`, {
              code: 'expired',
              facts,
            });
    // Under --json, the state carries the failure as its `error` member (SPEC §4).
    throw answeredWith(error, status);
  }
}
