import { Command } from 'commander';
import { ioOf } from '../../io.js';

/** `dasvc completion bash|zsh|fish` (SPEC §3): a thin script that asks `dasvc __complete` at each TAB. */
export function completionCommand(): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string, _o: unknown, cmd: Command) => {
      const { run } = await import('./run.js');
      let root = cmd;
      while (root.parent) root = root.parent;
      const json = Boolean(cmd.optsWithGlobals<{ json?: boolean }>().json);
      run({ shell }, { name: root.name(), stdout: ioOf(cmd).stdout ?? process.stdout, json });
    });
}
