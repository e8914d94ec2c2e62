import type { DasvcError } from '../errors.js';
import { AuthError, sameKind } from '../errors.js';
import { CLIENT_REFUSALS } from '../oauth/client-refusals.js';

/** An authorization that did not succeed for a reason outside the installation's conformance. */
export class CheckStopped extends Error {
  constructor(
    readonly refusal: DasvcError,
    /** The line of every rule left unmeasured. */
    readonly why: string,
  ) {
    super(refusal.message);
  }
}

/**
 * Whether a failed login was refused for the client's or the person's reason (CLIENT_REFUSALS: a
 * denial at the consent page, SPEC §5's own answer to one, client credentials or a scope the
 * installation refuses), which measures the client's settings, not the installation. The check
 * cannot go on and says so with the §4 exit code (3) rather than a deviation (1), which would tell
 * a CI job that a conformant installation is not. A changed `state`, or an error redirect the
 * installation should not give, stay deviations of `redirect.code-and-state`: those redirects are
 * what the rule measures.
 */
export function refusedForTheClient(error: DasvcError): boolean {
  return CLIENT_REFUSALS.has(error.code ?? '');
}

/**
 * The fact added to a failure in the check's authorization (whose own facts, a network
 * failure's say, are kept): it was the check's, whose hints name the check's flags.
 */
const DURING_CHECK = { during: 'check' };

/** The check stopped by a refusal meant for the client or the person (exit 3). */
export function stoppedByRefusal(error: DasvcError): CheckStopped {
  return new CheckStopped(
    sameKind(error, `the check's authorization did not succeed: ${error.message}`, {
      facts: DURING_CHECK,
    }),
    "not run: the check's authorization was refused",
  );
}

/** The check stopped because the client's own credentials were refused (an unknown client id). */
export function stoppedByCredentials(before: string): CheckStopped {
  return new CheckStopped(
    new AuthError(
      `the check's authorization did not succeed: ${before}, and the installation refused the client's credentials (invalid_client)`,
      { code: 'invalid_client', facts: DURING_CHECK },
    ),
    "not run: the check's authorization was refused",
  );
}

/**
 * The check stopped by an authorization that measured nothing: no redirect came (a login timed
 * out), or the authorization request was answered with an error or not at all. It ends with the
 * failure's own exit code (SPEC §4), every rule that needs tokens skipped with why.
 */
export function stoppedUnmeasured(error: DasvcError): CheckStopped {
  return new CheckStopped(
    sameKind(error, `the check's authorization did not succeed: ${error.message}`, {
      facts: DURING_CHECK,
    }),
    `not run: ${error.message}`,
  );
}
