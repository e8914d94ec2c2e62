import { Command } from '../commander.js';
import { addServiceOptions } from './service-options.js';

/** `dasvc logout` (SPEC §3): revoke at the service (best effort), then forget locally. */
export function logoutCommand(): Command {
  const command = new Command('logout').description(
    'revoke the stored tokens at the service, then forget them',
  );
  addServiceOptions(command).action(async (_options: unknown, cmd: Command) => {
    const [{ logoutRun }, { createContext }] = await Promise.all([
      import('../run/logout.js'),
      import('../context.js'),
    ]);
    await logoutRun(await createContext(cmd));
  });
  return command;
}
