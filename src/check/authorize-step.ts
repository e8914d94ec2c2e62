import { DasvcError, InterruptedError } from '../errors.js';
import { oauthAnswerOf } from './answers.js';
import type { CheckStopped } from './authorization.js';
import {
  refusedForTheClient,
  stoppedByCredentials,
  stoppedByRefusal,
  stoppedUnmeasured,
} from './authorization.js';
import type { CheckRun } from './check-run.js';
import { refreshedTokens } from './rules/refresh-rules.js';
import { redirectRule, tokenMembersRule, type AuthorizationOutcome } from './rules/token-rules.js';
import type { Exchange } from './types.js';

/** What one authorization gave the phase that asked for it. */
export interface Authorized {
  outcome: AuthorizationOutcome;
  access?: string;
  refresh?: string;
  body?: Record<string, unknown>;
  /** When the token answer arrived (ms). */
  at: number;
}

/**
 * One authorization of the check: the login flow of `dasvc login`, watched. The first one also
 * gives redirect.code-and-state and token.members. A failure that measured nothing, a refusal
 * meant for the client or the person, or a failure of a step whose rule did not find the
 * installation deviating there stops the check (CheckStopped); a failure of a step that deviates
 * is returned in the outcome, and the phase's rules say they could not run.
 */
export async function authorize(run: CheckRun): Promise<Authorized> {
  const { probes, deps, scope } = run;
  run.authorizations += 1;
  deps.tell?.(`Authorization ${run.authorizations} of at most 3 (scope ${scope}):`);
  probes.lastLoginExchange = undefined;
  let failure: AuthorizationOutcome['failure'];
  let failed: DasvcError | undefined;
  let authorizationUrl: string | undefined;
  let redirect: string | undefined;
  try {
    await deps.authorize(scope, probes.loginSend, (seen) => {
      if ('authorizationUrl' in seen) authorizationUrl = seen.authorizationUrl;
      else redirect = seen.redirect;
    });
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    // Neither a redirect nor a code exchange: nothing the installation did was seen (a login
    // that timed out, an error answer to the authorization request).
    if (error instanceof DasvcError && redirect === undefined && !probes.lastLoginExchange)
      throw await stopFor(run, error);
    if (error instanceof DasvcError && refusedForTheClient(error)) throw stoppedByRefusal(error);
    if (error instanceof DasvcError) failed = error;
    failure = {
      message: error instanceof Error ? error.message : String(error),
      ...(error instanceof DasvcError && error.code ? { code: error.code } : {}),
    };
  }
  const at = deps.now();
  const exchange = probes.lastLoginExchange as Exchange | undefined;
  const outcome: AuthorizationOutcome = {
    ...(exchange ? { exchange } : {}),
    ...(failure ? { failure } : {}),
    ...(authorizationUrl === undefined
      ? {}
      : {
          authorization: {
            request: { method: 'GET', url: authorizationUrl, headers: {} },
            ...(redirect === undefined
              ? { error: failure?.message ?? 'no redirect arrived' }
              : { redirect }),
          },
        }),
  };
  if (run.authorizations === 1) {
    run.give('redirect.code-and-state', redirectRule(outcome));
    if (exchange) run.measured('token.members', exchange, tokenMembersRule);
  }
  // A failure is a deviation when the rule that judges its step (measured in the first
  // authorization: the code exchange's token.members, the redirect's redirect.code-and-state) says
  // the installation deviates there. Else no rule measured it, and the check ends with its exit
  // code rather than skip the rules and pass.
  if (failed && !run.deviates(exchange ? 'token.members' : 'redirect.code-and-state')) {
    throw stoppedUnmeasured(failed);
  }
  const answer = exchange ? oauthAnswerOf(exchange) : undefined;
  if (answer?.kind !== 'success') return { outcome, at };
  const { access, refresh } = refreshedTokens(exchange!);
  return {
    outcome,
    at,
    body: answer.body,
    ...(access ? { access } : {}),
    ...(refresh ? { refresh } : {}),
  };
}

/** Why the rules of a phase cannot run, when its authorization gave no usable tokens. */
export function unusable(auth: Authorized): string | undefined {
  if (auth.access !== undefined) return undefined;
  if (auth.outcome.failure) return `the authorization failed: ${auth.outcome.failure.message}`;
  return 'the code exchange gave no access token';
}

/**
 * The stop of an authorization that measured nothing: a refusal of the client's or the person's,
 * else the refusal of the client's own credentials when that is the reason (an unknown client id
 * gets an error page, never a redirect), else the failure itself.
 */
async function stopFor(run: CheckRun, error: DasvcError): Promise<CheckStopped> {
  if (refusedForTheClient(error)) return stoppedByRefusal(error);
  if (await ownCredentialsRefused(run)) return stoppedByCredentials(error.message);
  return stoppedUnmeasured(error);
}

/**
 * Whether the installation refuses the client's own credentials (invalid_client to the
 * revocation of an unknown token: revoke.unknown-token's request, sent now if it was not yet).
 */
async function ownCredentialsRefused(run: CheckRun): Promise<boolean> {
  const answer = oauthAnswerOf(await run.revokeUnknown());
  return answer.kind === 'error' && answer.code === 'invalid_client';
}
