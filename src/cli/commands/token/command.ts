import { Command } from 'commander';
import { addServiceOptions } from '../../service-options.js';
import type { TokenRevokeOptions } from './revoke.js';

/** Each subcommand's run, loaded when it is invoked (literal paths, so that bundlers see them). */
const RUNS = {
  status: async () => (await import('./status.js')).run,
  print: async () => (await import('./print.js')).run,
  refresh: async () => (await import('./refresh.js')).run,
  revoke: async () => (await import('./revoke.js')).run,
};

async function runSub(cmd: Command, name: keyof typeof RUNS): Promise<void> {
  const [run, { createDeps }] = await Promise.all([RUNS[name](), import('../../context.js')]);
  await run(cmd.opts<TokenRevokeOptions>(), await createDeps(cmd));
}

/** `dasvc token status|print|refresh|revoke` (SPEC §3). */
export function tokenCommand(): Command {
  const token = new Command('token').description('inspect, print, refresh and revoke tokens');
  token
    .command('status')
    .description('profile, base URL, scope, expiry, whether a refresh is possible')
    .action((_o: unknown, cmd: Command) => runSub(cmd, 'status'));
  addServiceOptions(
    token.command('print').description('print the access token alone (refreshed first when due)'),
  ).action((_o: unknown, cmd: Command) => runSub(cmd, 'print'));
  addServiceOptions(
    token.command('refresh').description('refresh now and store the new tokens'),
  ).action((_o: unknown, cmd: Command) => runSub(cmd, 'refresh'));
  addServiceOptions(token.command('revoke').description('revoke a token at the service'))
    .option('--token <token>', 'revoke this token instead of the stored ones (env DASVC_TOKEN)')
    .option('--hint <type>', 'access_token or refresh_token')
    .option('--all', 'revoke both stored tokens and forget them')
    .action((_o: unknown, cmd: Command) => runSub(cmd, 'revoke'));
  return token;
}
