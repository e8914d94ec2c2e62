import { Command } from 'commander';
import type { MockCommandOptions } from './run.js';

/** `dasvc mock`: runs the local mock service until SIGINT/SIGTERM. */
export function mockCommand(): Command {
  return new Command('mock')
    .description('run the local mock of the Delegated Access Service')
    .option('--port <n>', 'port to listen on; 0 picks a free one', '8080')
    .option('--host <address>', 'interface to listen on', '127.0.0.1')
    .option('--fixtures <dir>', "fixtures folder (default: the package's fixtures/)")
    .option(
      '--auto-approve <user>',
      'approve every authorization request as this user, no consent page',
    )
    .option('--code-ttl <duration>', 'authorization code lifetime (90s, 15m, 1h, 30d)', '1h')
    .option('--access-ttl <duration>', 'access token lifetime', '1h')
    .option('--refresh-ttl <duration>', 'refresh token lifetime', '30d')
    .option('--state-file <file>', 'keep codes and tokens in this file across restarts')
    .option(
      '--headers-timeout <duration>',
      'a request head not complete by then gets 408 (500ms, 10s)',
      '10s',
    )
    .option(
      '--request-timeout <duration>',
      'a request (body included) not complete by then gets 408',
      '30s',
    )
    .option('--quirks <file>', "reproduce an installation's deviations (dasvc check --save-quirks)")
    .option(
      '--proxy <url>',
      'forward every service request to this installation; its answers come back unchanged',
    )
    .option('--record <dir>', 'with --proxy: write what passes as a fixtures folder')
    .option('--record-user <name>', 'the one user of the recorded folder', undefined)
    .option(
      '--validate',
      "with --proxy and --fixtures: check each call against the folder's contract",
    )
    .option('--scrub <list>', 'with --record: result members to replace, e.g. email,contact.phone')
    .option('--quiet', 'no request log lines')
    .option('--journal-size <n>', 'requests kept by the journal and the dashboard', '1000')
    .action(async (_options: unknown, cmd: Command) => {
      const [{ run, mockIo }, { ioOf }] = await Promise.all([
        import('./run.js'),
        import('../../io.js'),
      ]);
      await run(cmd.optsWithGlobals<MockCommandOptions>(), mockIo(ioOf(cmd)));
    });
}
