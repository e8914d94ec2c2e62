import type { Command } from 'commander';

/**
 * `dasvc help token revoke` → `dasvc token revoke --help`. commander's own help command passes on
 * only the first name after `help` and so showed the help of `token`; the rewrite follows the
 * whole path of known subcommands instead (`dasvc token help revoke` likewise). Anything else is
 * returned unchanged: `help` after a command with no subcommands is an argument (a method name).
 */
export function helpAsFlag(program: Command, argv: readonly string[]): string[] {
  const head = argv.slice(0, 2);
  const args = argv.slice(2);
  let command = program;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      // A global option's value (`--profile work`) is not a command name.
      if (arg === '--profile') i++;
      continue;
    }
    const sub = (name: string | undefined) =>
      command.commands.find((c) => c.name() === name || c.aliases().includes(name ?? ''));
    if (arg === 'help' && sub(args[i + 1])) {
      return [...head, ...args.slice(0, i), ...args.slice(i + 1), '--help'];
    }
    // `help <unknown>`: commander showed nothing at all (exit 2); without `help` it names the
    // unknown command, as `dasvc frobnicate` does.
    const name = args[i + 1];
    if (arg === 'help' && command.commands.length > 0 && name && !name.startsWith('-'))
      return [...head, ...args.slice(0, i), ...args.slice(i + 1)];
    const next = sub(arg);
    if (!next) break;
    command = next;
  }
  return [...argv];
}

/** The word after a leading `help` (`dasvc help environment`), skipping global flags; else undefined. */
export function helpWordIn(argv: readonly string[]): string | undefined {
  const args = argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--profile') {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return arg === 'help' ? args[i + 1] : undefined;
  }
  return undefined;
}
