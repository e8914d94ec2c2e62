import { CLIENT_REFUSALS } from '../../oauth/client-refusals.js';
import { namesOf, type HintRule } from './facts.js';

/**
 * `dasvc check` (src/check/): the rules `--only` may name, and an authorization that stopped the
 * check (`during: 'check'`), whose fix is the check's flags rather than a login's. Any other
 * failure of its authorization (the network, say) gets the hint it gets anywhere.
 */
export const checkHint: HintRule = (code, facts) => {
  if (code === 'unknown_rule') {
    const rules = namesOf(facts.rules);
    return rules.length === 0 ? undefined : `rules: ${rules.join(', ')}`;
  }
  if (facts.during !== 'check') return undefined;
  if (code === 'access_denied')
    return 'approve the consent page: every rule after it needs the tokens';
  // The other refusals of the client's side are its settings'.
  if (CLIENT_REFUSALS.has(code))
    return 'check --client-id, --client-secret and --scope (or the profile) against the installation';
  if (code === 'login_timeout')
    return 'complete the authorization in the browser within --timeout, or pass --no-browser and paste the address the browser was sent to';
  return undefined;
};
