import type { DasvcError } from '../errors.js';
import { CheckStopped } from './authorization.js';
import { CheckRun, type CheckDeps, type CheckSettings } from './check-run.js';
import { codePhase } from './code-phase.js';
import { expiryPhase } from './expiry-phase.js';
import { noAuthorizationPhase } from './no-authorization-phase.js';
import { pairPhase } from './pair-phase.js';
import type { Probes } from './probes.js';
import { rulesOf, type RuleId } from './rule-catalogue.js';
import { errorsShapeRule } from './rules/token-rules.js';
import type { Verdict } from './types.js';

/**
 * Runs the selected rules of SPEC §7 against an installation: first those that need no
 * authorization, then up to three authorizations (the `code`, `refresh` + `revoke` and `expiry`
 * phases of the catalogue), each only when one of its rules is selected. Tokens obtained stay in
 * `probes.obtained` for the caller to revoke.
 */
export function startCheck(
  settings: CheckSettings,
  selected: Set<RuleId>,
  deps: CheckDeps,
): {
  probes: Probes;
  done: Promise<Verdict[]>;
  stopped: () => DasvcError | undefined;
  /** Why an authorization the check needed gave no access token, if one did. */
  unauthorized: () => string | undefined;
} {
  const run = new CheckRun(settings, selected, deps);
  const phases = [
    { ids: rulesOf('code'), measure: codePhase },
    { ids: [...rulesOf('refresh'), ...rulesOf('revoke')], measure: pairPhase },
    { ids: rulesOf('expiry'), measure: expiryPhase },
  ];
  const needAuthorization = phases.flatMap((phase) => phase.ids);
  let stoppedBy: DasvcError | undefined;
  const done = (async () => {
    await noAuthorizationPhase(run);
    if (run.probes.requests.unanswered) {
      // Nothing answered: no login can succeed either, and waiting for one (up to --timeout)
      // would tell nothing more. The caller ends with exit 4 (SPEC §4).
      run.skip(needAuthorization, 'no answer from the installation');
    }
    try {
      for (const { ids, measure } of phases) if (ids.some(run.want)) await measure(run);
    } catch (error) {
      if (!(error instanceof CheckStopped)) throw error;
      // The rules that ran keep their lines; the others say why they did not (SPEC §7: each
      // rule prints one line), and the caller ends with the failure's exit code.
      stoppedBy = error.refusal;
      run.skip(needAuthorization, error.why);
    }
    run.give('errors.shape', errorsShapeRule(run.probes.oauthErrors));
    return run.list();
  })();
  return {
    probes: run.probes,
    done,
    stopped: () => stoppedBy,
    unauthorized: () => run.unauthorized,
  };
}
