import { currentTokens } from '../../../store/session.js';
import type { CliDeps } from '../../context.js';
import {
  describeExpiry,
  loadProfile,
  sessionDeps,
  sessionSummary,
  tokenStateJson,
} from '../../token-state.js';
import type { TokenOptions } from './command.js';

/** `dasvc token refresh` (SPEC §3): refresh now, store the new pair; the new expiry on stdout. */
export async function run(options: TokenOptions, deps: CliDeps): Promise<void> {
  const view = loadProfile(deps);
  const { tokens } = await currentTokens(sessionDeps(options, deps, view), { force: true });
  const profile = deps.store.profile(view.name) ?? view.profile ?? {};
  const now = deps.now();
  if (deps.out.json) deps.out.result(tokenStateJson(view.name, profile, tokens, now));
  else deps.out.line(sessionSummary(view.name, profile, tokens, now));
  // On a terminal the summary above is already in front of the person: said once (issue 9.11).
  const said = !deps.out.json && deps.out.stdout.isTTY === true;
  deps.out.success(
    said
      ? 'Refreshed'
      : `Refreshed: profile ${view.name}, access token ${describeExpiry(tokens, now)}`,
  );
}
