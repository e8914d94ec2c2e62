import { Command } from '../commander.js';

/** `dasvc demo` (SPEC §3, also `npm start`): the whole flow on an embedded mock, narrated. */
export function demoCommand(): Command {
  return new Command('demo')
    .description('run the whole flow against an embedded mock and narrate each exchange')
    .option('--browser', 'open the real consent page in a browser instead of auto-approving')
    .action(async (options: { browser?: boolean }, cmd: Command) => {
      const [{ runDemo }, { startMockServer }, { loadStyles }, { openBrowser }] = await Promise.all(
        [
          import('../../demo/run-demo.js'),
          import('../../mock/index.js'),
          import('../output.js'),
          import('../browser.js'),
        ],
      );
      const globals = cmd.optsWithGlobals<{ json?: boolean; color?: boolean }>();
      await runDemo(
        { browser: Boolean(options.browser), json: Boolean(globals.json) },
        {
          stdout: process.stdout,
          stderr: process.stderr,
          style: await loadStyles(globals.color !== false, process.stdout, process.env),
          openBrowser: (url) => openBrowser(url, process.env),
          startMock: startMockServer,
          now: Date.now,
        },
      );
    });
}
