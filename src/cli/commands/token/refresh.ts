import { openClient, type CliDeps } from '../../context.js';
import { describeExpiry, sessionSummary, tokenStateJson } from '../../token-state.js';
import type { TokenOptions } from './command.js';

/** `dasvc token refresh` (SPEC §3): refresh now, store the new pair; the new expiry on stdout. */
export async function run(options: TokenOptions, deps: CliDeps): Promise<void> {
  const client = openClient(options, deps);
  const tokens = await client.refresh();
  const name = client.profileName();
  const profile = deps.store.profile(name) ?? {};
  const now = deps.now();
  if (deps.out.json) deps.out.result(tokenStateJson(name, profile, tokens, now));
  else deps.out.line(sessionSummary(name, profile, tokens, now));
  // On a terminal the summary above is already in front of the person: said once (issue 9.11).
  const said = !deps.out.json && deps.out.stdout.isTTY === true;
  deps.out.success(
    said ? 'Refreshed' : `Refreshed: profile ${name}, access token ${describeExpiry(tokens, now)}`,
  );
}
