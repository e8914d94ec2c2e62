import { Command } from 'commander';
import type { ProfileOptions } from './run.js';

async function runAction(cmd: Command, options: ProfileOptions): Promise<void> {
  const [{ run }, { createDeps }] = await Promise.all([
    import('./run.js'),
    import('../../context.js'),
  ]);
  await run(options, await createDeps(cmd));
}

/** `dasvc profile list|show|use|remove` (SPEC §3). */
export function profileCommand(): Command {
  const profile = new Command('profile').description('manage profiles');
  profile
    .command('list')
    .description('list profiles; * marks the active one')
    .action((_o: unknown, cmd: Command) => runAction(cmd, { action: 'list' }));
  profile
    .command('show')
    .argument('[name]', 'profile (default: the active one)')
    .description("show a profile's settings and token state (never the secrets)")
    .action((name: string | undefined, _o: unknown, cmd: Command) =>
      runAction(cmd, { action: 'show', ...(name === undefined ? {} : { name }) }),
    );
  profile
    .command('use')
    .argument('<name>', 'profile to make active')
    .description('make a profile the active one')
    .action((name: string, _o: unknown, cmd: Command) => runAction(cmd, { action: 'use', name }));
  profile
    .command('remove')
    .argument('<name>', 'profile to remove')
    .description('forget a profile and its tokens (run logout first to revoke them)')
    .action((name: string, _o: unknown, cmd: Command) =>
      runAction(cmd, { action: 'remove', name }),
    );
  return profile;
}
