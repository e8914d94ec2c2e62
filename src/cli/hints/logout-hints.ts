import { DEFAULT_PROFILE } from '../../store/profile-store.js';
import { textOf, type HintRule } from './facts.js';

/**
 * `dasvc logout` (src/client/logout.ts) that kept the tokens because the service could not revoke
 * them: `--forget` deletes them locally anyway. A client the service did not accept is fixed
 * first, by its secret (the failure behind it tells where that came from).
 */
export const logoutHint: HintRule = (_code, facts, cause) => {
  const profile = textOf(facts.profile);
  if (facts.keptTokens !== true || profile === undefined) return undefined;
  const forget = `dasvc logout${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`} --forget`;
  const first = cause?.code === 'invalid_client' ? cause.hint() : undefined;
  return `${first ? `${first}; or ` : ''}${forget} deletes them locally anyway`;
};
