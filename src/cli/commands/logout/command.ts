import { Command } from 'commander';
import { addServiceOptions } from '../../service-options.js';
import type { LogoutOptions } from './run.js';

/** `dasvc logout [--forget]` (SPEC §3): revoke at the service, then forget locally. */
export function logoutCommand(): Command {
  const command = new Command('logout').description(
    'revoke the stored tokens at the service, then forget them',
  );
  addServiceOptions(command)
    .option('--forget', 'delete the tokens locally even when the service cannot revoke them')
    .action(async (options: LogoutOptions, cmd: Command) => {
      const [{ run }, { createDeps }] = await Promise.all([
        import('./run.js'),
        import('../../context.js'),
      ]);
      await run(options, await createDeps(cmd));
    });
  return command;
}
