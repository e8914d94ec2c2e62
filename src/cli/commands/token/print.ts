import { openClient, type CliDeps } from '../../context.js';
import type { ServiceOptions } from '../../service-options.js';

/** `dasvc token print` (SPEC §3): the access token alone, refreshed first when due. */
export async function run(options: ServiceOptions, deps: CliDeps): Promise<void> {
  const tokens = await openClient(options, deps).tokens();
  if (deps.out.json)
    deps.out.result({
      accessToken: tokens.accessToken,
      expiresAt: tokens.expiresAt === null ? null : new Date(tokens.expiresAt).toISOString(),
    });
  else deps.out.line(tokens.accessToken);
}
