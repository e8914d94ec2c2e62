import { openClient, type CliDeps } from '../../context.js';
import { sayDone, sessionSummary, tokenStateJson } from '../../token-state.js';
import type { ServiceOptions } from '../../service-options.js';

/** `dasvc token refresh` (SPEC §3): refresh now, store the new pair; the new expiry on stdout. */
export async function run(options: ServiceOptions, deps: CliDeps): Promise<void> {
  const client = openClient(options, deps);
  const tokens = await client.refresh();
  const name = client.profileName();
  const profile = deps.store.profile(name) ?? {};
  const now = deps.now();
  sayDone(deps, 'Refreshed', tokenStateJson(name, profile, tokens, now), () =>
    sessionSummary(name, profile, tokens, now),
  );
}
