import { Command } from 'commander';
import { createRequire } from 'node:module';
import { completionCommand } from './commands/completion.js';
import { demoCommand } from './commands/demo.js';
import { initCommand } from './commands/init.js';
import { loginCommand } from './commands/login.js';
import { logoutCommand } from './commands/logout.js';
import { mockCommand } from './commands/mock.js';
import { profileCommand } from './commands/profile.js';
import { rpcCommand } from './commands/rpc.js';
import { tokenCommand } from './commands/token.js';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

/**
 * The commander program: global flags and the command declarations. Declarations are cheap;
 * each command loads its logic lazily so `--help` and `rpc` stay fast.
 */
export function buildProgram(): Command {
  const program = new Command('dasvc')
    .description('Developer CLI and local mock for the Delegated Access Service')
    .version(version, '--version')
    .option('--profile <name>', 'profile to use (env DASVC_PROFILE)')
    .option('--json', 'machine-readable output on stdout')
    .option('--verbose', 'trace HTTP exchanges on stderr (secrets redacted)')
    .option('--no-color', 'disable colour')
    .exitOverride()
    .showHelpAfterError();
  for (const command of [
    loginCommand(),
    logoutCommand(),
    tokenCommand(),
    rpcCommand(),
    profileCommand(),
    initCommand(),
    completionCommand(),
  ]) {
    program.addCommand(command);
  }
  program.addCommand(mockCommand());
  program.addCommand(demoCommand());
  return program;
}
