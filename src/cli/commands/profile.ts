import { Command } from '../commander.js';

async function run(
  cmd: Command,
  name: 'list' | 'show' | 'use' | 'remove',
  target?: string,
): Promise<void> {
  const [runs, { createContext }] = await Promise.all([
    import('../run/profile.js'),
    import('../context.js'),
  ]);
  await runs.profileRun(name, target, await createContext(cmd));
}

/** `dasvc profile list|show|use|remove` (SPEC §3). */
export function profileCommand(): Command {
  const profile = new Command('profile').description('manage profiles');
  profile
    .command('list')
    .description('list profiles; * marks the active one')
    .action((_o: unknown, cmd: Command) => run(cmd, 'list'));
  profile
    .command('show')
    .argument('[name]', 'profile (default: the active one)')
    .description("show a profile's settings and token state (never the secrets)")
    .action((name: string | undefined, _o: unknown, cmd: Command) => run(cmd, 'show', name));
  profile
    .command('use')
    .argument('<name>', 'profile to make active')
    .description('make a profile the active one')
    .action((name: string, _o: unknown, cmd: Command) => run(cmd, 'use', name));
  profile
    .command('remove')
    .argument('<name>', 'profile to remove')
    .description('forget a profile and its tokens (run logout first to revoke them)')
    .action((name: string, _o: unknown, cmd: Command) => run(cmd, 'remove', name));
  return profile;
}
