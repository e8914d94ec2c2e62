import { Command } from 'commander';
import { addServiceOptions } from '../../service-options.js';
import type { LoginOptions } from './run.js';

/** `dasvc login` (SPEC §3): flags only; the flow lives in ./run.ts. */
export function loginCommand(): Command {
  const command = new Command('login').description(
    'log in through the browser (OAuth 2.0 authorization code + PKCE)',
  );
  addServiceOptions(command, { scope: true })
    .option('--port <n>', 'loopback port for the redirect (default: a free one)')
    .option('--no-browser', 'do not open a browser; print the URL and accept a pasted redirect URL')
    .option('--no-pkce', 'leave out PKCE (RFC 7636)')
    .option('--timeout <seconds>', 'give up after this long (default 300)')
    .option(
      '--insecure-storage',
      'keep the tokens and client secret in the config file (0600), not the OS credential store',
    )
    .option(
      '--refresh-margin <duration>',
      'refresh this long before expiry (default max(60s, 10% of lifetime))',
    )
    .action(async (options: LoginOptions, cmd: Command) => {
      const [{ run }, { createDeps }] = await Promise.all([
        import('./run.js'),
        import('../../context.js'),
      ]);
      await run(options, await createDeps(cmd));
    });
  return command;
}
