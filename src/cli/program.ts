import { Command } from 'commander';
import { packageVersion } from '../package-root.js';

/**
 * Every top-level command, in help order, each declared by a module that is imported only when
 * the invocation needs it: `dasvc rpc …` loads the rpc declaration and nothing of the others.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  login: async () => (await import('./commands/login/command.js')).loginCommand(),
  logout: async () => (await import('./commands/logout/command.js')).logoutCommand(),
  token: async () => (await import('./commands/token/command.js')).tokenCommand(),
  rpc: async () => (await import('./commands/rpc/command.js')).rpcCommand(),
  mock: async () => (await import('./commands/mock/command.js')).mockCommand(),
  check: async () => (await import('./commands/check/command.js')).checkCommand(),
  types: async () => (await import('./commands/types/command.js')).typesCommand(),
  demo: async () => (await import('./commands/demo/command.js')).demoCommand(),
  profile: async () => (await import('./commands/profile/command.js')).profileCommand(),
  init: async () => (await import('./commands/init/command.js')).initCommand(),
  completion: async () => (await import('./commands/completion/command.js')).completionCommand(),
};

/** The headings of the top-level help: what a user reaches for daily first. */
const GROUPS: Record<string, string> = {
  login: 'Everyday:',
  logout: 'Everyday:',
  token: 'Everyday:',
  rpc: 'Everyday:',
  mock: 'Mock, check and types:',
  check: 'Mock, check and types:',
  types: 'Mock, check and types:',
  demo: 'Mock, check and types:',
  profile: 'Setup:',
  init: 'Setup:',
  completion: 'Setup:',
};

/** Global options that take a value, so that the value is not mistaken for the command name. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(['--profile']);

/**
 * The known top-level command that `argv` (process.argv: node, script, …) names, skipping the
 * global options before it; undefined for none, an unknown one, or `help`.
 */
export function commandNameIn(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return Object.hasOwn(COMMANDS, arg) ? arg : undefined;
  }
  return undefined;
}

/**
 * The commander program: global flags and the command declarations that `argv` needs. When argv
 * names a known command, only that one is declared (and its module loaded); root help, an unknown
 * command, `help` and `completion` see them all. Each command loads its logic lazily in turn.
 */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('dasvc')
    .description('Developer CLI and local mock for the Delegated Access Service')
    .version(packageVersion(), '--version')
    .option('--profile <name>', 'profile to use (env DASVC_PROFILE)')
    .option('--json', 'machine-readable output on stdout')
    .option('--verbose', 'trace HTTP exchanges on stderr (secrets redacted)')
    .option('--no-color', 'disable colour')
    .exitOverride()
    .showHelpAfterError();
  const name = commandNameIn(argv);
  const wanted = name === undefined || name === 'completion' ? Object.keys(COMMANDS) : [name];
  const commands = await Promise.all(wanted.map((key) => COMMANDS[key]!()));
  for (const command of commands) {
    const group = GROUPS[command.name()];
    if (group) command.helpGroup(group);
    program.addCommand(command);
  }
  program
    .commandsGroup('Setup:')
    .helpCommand('help [command]', 'help on a command, or a topic: environment, exit-codes');
  return program;
}
