import { Command } from 'commander';

/** `dasvc init` (SPEC §3): an interactive wizard that writes a profile. */
export function initCommand(): Command {
  return new Command('init')
    .description('interactive wizard that writes a profile (terminal only)')
    .action(async (_o: unknown, cmd: Command) => {
      const [{ run }, { createDeps }] = await Promise.all([
        import('./run.js'),
        import('../../context.js'),
      ]);
      await run({}, await createDeps(cmd));
    });
}
