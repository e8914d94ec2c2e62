import { Command } from '../commander.js';
import { addServiceOptions } from './service-options.js';

async function run(cmd: Command, name: 'status' | 'print' | 'refresh' | 'revoke'): Promise<void> {
  const [runs, { createContext }] = await Promise.all([
    import('../run/token.js'),
    import('../context.js'),
  ]);
  const ctx = await createContext(cmd);
  if (name === 'status') await runs.tokenStatusRun(ctx);
  else if (name === 'print') await runs.tokenPrintRun(ctx);
  else if (name === 'refresh') await runs.tokenRefreshRun(ctx);
  else await runs.tokenRevokeRun(ctx);
}

/** `dasvc token status|print|refresh|revoke` (SPEC §3). */
export function tokenCommand(): Command {
  const token = new Command('token').description('inspect, print, refresh and revoke tokens');
  token
    .command('status')
    .description('profile, base URL, scope, expiry, whether a refresh is possible')
    .action((_o: unknown, cmd: Command) => run(cmd, 'status'));
  addServiceOptions(
    token.command('print').description('print the access token alone (refreshed first when due)'),
  ).action((_o: unknown, cmd: Command) => run(cmd, 'print'));
  addServiceOptions(
    token.command('refresh').description('refresh now and store the new tokens'),
  ).action((_o: unknown, cmd: Command) => run(cmd, 'refresh'));
  addServiceOptions(token.command('revoke').description('revoke a token at the service'))
    .option('--token <token>', 'revoke this token instead of the stored ones (env DASVC_TOKEN)')
    .option('--hint <type>', 'access_token or refresh_token')
    .option('--all', 'revoke both stored tokens and forget them')
    .action((_o: unknown, cmd: Command) => run(cmd, 'revoke'));
  return token;
}
