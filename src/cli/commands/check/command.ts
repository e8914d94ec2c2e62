import { Command } from 'commander';
import { addServiceOptions } from '../../service-options.js';
import type { CheckOptions } from './run.js';

/** `dasvc check` (SPEC §7): flags only; the rules live in src/check/, the run in ./run.ts. */
export function checkCommand(): Command {
  const command = new Command('check').description(
    "measure an installation against the service's rules; save its quirks for the mock",
  );
  addServiceOptions(command, { scope: true })
    .option(
      '--only <ids>',
      'run only these rules: ids or prefixes, comma-separated (refresh.,api.)',
    )
    .option('--max-wait <duration>', 'wait at most this long for a token to expire (default 0)')
    .option('--junit <file>', 'write a JUnit XML report for CI dashboards')
    .option('--save-quirks <file>', 'write what deviated as a quirks file for dasvc mock --quirks')
    .option('--port <n>', 'loopback port for the redirects (default: a free one)')
    .option(
      '--no-browser',
      'do not open a browser; print each URL and accept a pasted redirect URL',
    )
    .option('--timeout <seconds>', 'give up on an authorization after this long (default 300)')
    .action(async (options: CheckOptions, cmd: Command) => {
      const [{ run }, { createDeps }] = await Promise.all([
        import('./run.js'),
        import('../../context.js'),
      ]);
      await run(options, await createDeps(cmd));
    });
  return command;
}
