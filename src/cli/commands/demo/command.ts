import { Command } from 'commander';
import { ioOf } from '../../io.js';
import type { DemoCommandOptions } from './run.js';

/** `dasvc demo` (SPEC §3, also `npm start`): the whole flow on an embedded mock, narrated. */
export function demoCommand(): Command {
  return new Command('demo')
    .description('run the whole flow against an embedded mock and narrate each exchange')
    .option('--browser', 'open the real consent page in a browser instead of auto-approving')
    .action(async (_options: unknown, cmd: Command) => {
      const [{ run }, { openBrowser }] = await Promise.all([
        import('./run.js'),
        import('../../../client/browser.js'),
      ]);
      // No interrupt signal is taken: the demo holds nothing that Ctrl-C must close first.
      const io = ioOf(cmd);
      const env = io.env ?? process.env;
      await run(cmd.optsWithGlobals<DemoCommandOptions>(), {
        env,
        stdout: io.stdout ?? process.stdout,
        stderr: io.stderr ?? process.stderr,
        openBrowser: (url) => openBrowser(url, env),
        now: Date.now,
      });
    });
}
