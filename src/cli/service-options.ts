import type { SettingOptions } from '../client/settings.js';
import type { Command } from 'commander';

/** The connection settings of SPEC §2 as a command's options carry them (flags, camelCase). */
export type ServiceOptions = Omit<SettingOptions, 'token' | 'profile'>;

/** Adds the connection settings of SPEC §2 (base URL, client, endpoints, placement) to a command. */
export function addServiceOptions(
  command: Command,
  which: { client?: boolean; scope?: boolean } = {},
): Command {
  command.option('--base-url <url>', 'installation base URL (env DASVC_BASE_URL)');
  if (which.client !== false) {
    command
      .option('--client-id <id>', 'client id (env DASVC_CLIENT_ID)')
      .option('--client-secret <secret>', 'client secret (env DASVC_CLIENT_SECRET)');
  }
  if (which.scope)
    command.option('--scope <ids>', 'space-separated instance IDs (env DASVC_SCOPE)');
  return command
    .option('--authorize-url <url>', 'authorization endpoint (env DASVC_AUTHORIZE_URL)')
    .option('--token-url <url>', 'token endpoint (env DASVC_TOKEN_URL)')
    .option('--refresh-url <url>', 'refresh endpoint (env DASVC_REFRESH_URL)')
    .option('--revoke-url <url>', 'revoke endpoint (env DASVC_REVOKE_URL)')
    .option('--api-url <template>', 'API URL template with {scope} (env DASVC_API_URL)')
    .option(
      '--params <placement>',
      'OAuth parameters in the "query" (default) or a form "body" (env DASVC_PARAMS)',
    );
}
