import { currentTokens } from '../../../store/session.js';
import type { CliDeps } from '../../context.js';
import { loadProfile, sessionDeps } from '../../token-state.js';
import type { TokenOptions } from './command.js';

/** `dasvc token print` (SPEC §3): the access token alone, refreshed first when due. */
export async function run(options: TokenOptions, deps: CliDeps): Promise<void> {
  const view = loadProfile(deps);
  const { tokens } = await currentTokens(sessionDeps(options, deps, view));
  if (deps.out.json)
    deps.out.result({
      accessToken: tokens.accessToken,
      expiresAt: tokens.expiresAt === null ? null : new Date(tokens.expiresAt).toISOString(),
    });
  else deps.out.line(tokens.accessToken);
}
