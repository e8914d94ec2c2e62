import type { Command, Option } from 'commander';
import { givenParamKeys } from '../../../rpc/params.js';

/** One completion: the word, and what it is (shown by zsh and fish, dropped by bash). */
export interface Candidate {
  value: string;
  description?: string;
}

/** What depends on the user's setup: the profiles in the store and the instance's methods. */
export interface CompletionSources {
  profiles(): string[];
  /** The scope (instance IDs) of the profile named on the line, or of the active one. */
  scopes(profile: string | undefined): string[];
  /** A scope's method names (from `rpc.discover`); [] when they are not at hand. */
  methods(scope: string, line: CompletedLine): string[];
  /** The param names of a scope's method, when it takes them by name; [] when not at hand. */
  params(scope: string, method: string, line: CompletedLine): string[];
  /** The users of a fixtures folder (the default one when undefined), for `--auto-approve`. */
  users(fixtures: string | undefined): string[];
}

/** What the line says so far: the command path, its options and positional arguments. */
export interface CompletedLine {
  path: string[];
  /** Long option → value ('' for a switch), as typed before the current word. */
  options: Map<string, string>;
  positional: string[];
}

/** Option values that are a fixed list (SPEC §3: `--params`, `--hint`). */
const OPTION_VALUES: Record<string, string[]> = {
  '--params': ['query', 'body'],
  '--hint': ['access_token', 'refresh_token'],
};

/** Positional arguments by command path and position; undefined → none (nothing is offered). */
const ARGUMENTS: Record<
  string,
  (
    position: number,
    line: CompletedLine,
    sources: CompletionSources,
    current: string,
  ) => Promise<string[]> | string[]
> = {
  completion: (position) => (position === 0 ? ['bash', 'zsh', 'fish'] : []),
  rpc: (position, line, sources, current) => {
    if (position === 0) return sources.scopes(line.options.get('--profile'));
    if (line.options.has('--batch')) return [];
    const [scope, method] = line.positional as [string, string];
    if (position === 1) return sources.methods(scope, line);
    const given = givenParamKeys(line.positional.slice(2));
    // After `key=` comes its value: the shell's own completion (`key=@file`).
    if (given === undefined || current.includes('=')) return [];
    return sources
      .params(scope, method, line)
      .filter((name) => !given.includes(name))
      .map((name) => `${name}=`);
  },
  // Scopes of the profile not given yet; with --from the contract is another source's.
  types: (_position, line, sources) =>
    line.options.has('--from')
      ? []
      : sources
          .scopes(line.options.get('--profile'))
          .filter((scope) => !line.positional.includes(scope)),
  'profile show': (position, _line, sources) => (position === 0 ? sources.profiles() : []),
  'profile use': (position, _line, sources) => (position === 0 ? sources.profiles() : []),
  'profile remove': (position, _line, sources) => (position === 0 ? sources.profiles() : []),
};

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

/** The options accepted at `command`: its own and the program's global ones (commander parses both). */
function optionsAt(command: Command, root: Command): Option[] {
  const own = command.options.filter((o) => o.long);
  return command === root ? own : [...own, ...root.options.filter((o) => o.long)];
}

/** The options to offer: those the command's help lists (not the ones it accepts but never reads). */
function offeredAt(command: Command, root: Command): Option[] {
  return optionsAt(command, root).filter((o) => !o.hidden);
}

function visibleSubcommands(command: Command): Command[] {
  return command.commands.filter((c) => !(c as { _hidden?: boolean })._hidden);
}

function byPrefix(candidates: Candidate[], prefix: string): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    if (!c.value.startsWith(prefix) || seen.has(c.value)) return false;
    seen.add(c.value);
    return true;
  });
}

const words = (values: string[]): Candidate[] => values.map((value) => ({ value }));

/** The words before the one being completed, read as commander would: the command, options, arguments. */
function readLine(
  root: Command,
  before: readonly string[],
): { command: Command; state: CompletedLine; pending: Option | undefined; afterDashes: boolean } {
  let command = root;
  const state: CompletedLine = { path: [], options: new Map(), positional: [] };
  let pending: Option | undefined;
  let afterDashes = false;
  for (const word of before) {
    if (pending) {
      state.options.set(pending.long!, word);
      pending = undefined;
      continue;
    }
    if (!afterDashes && word === '--') {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && word.startsWith('-') && word.length > 1) {
      const [name, inline] = word.split(/=(.*)/s, 2) as [string, string | undefined];
      const option = optionsAt(command, root).find((o) => o.long === name || o.short === name);
      if (option && takesValue(option) && inline === undefined) pending = option;
      else state.options.set(option?.long ?? name, inline ?? '');
      continue;
    }
    const sub = state.positional.length === 0 ? subcommandNamed(command, word) : undefined;
    if (sub) {
      command = sub;
      state.path.push(sub.name());
    } else state.positional.push(word);
  }

  return { command, state, pending, afterDashes };
}

/** A value placeholder that names a path: the shell completes file names there. */
const PATH_VALUE = /<(file|dir|path)\b/;

/**
 * Whether the word being completed is a file's name (a path option's value, `key=@file`), where
 * the shell's own file-name completion answers; anywhere else a script offers files at no TAB.
 */
export function completesFiles(root: Command, line: readonly string[]): boolean {
  const current = line.at(-1) ?? '';
  const { command, state, pending, afterDashes } = readLine(root, line.slice(0, -1));
  const takesPath = (option: Option | undefined) =>
    option !== undefined && PATH_VALUE.test(option.flags);
  if (pending) return takesPath(pending);
  if (!afterDashes && current.startsWith('--') && current.includes('=')) {
    const [name] = current.split('=', 1) as [string];
    return takesPath(optionsAt(command, root).find((o) => o.long === name));
  }
  // `key=@file`: a param of `dasvc rpc` read from a file.
  return state.path.join(' ') === 'rpc' && /=@/.test(current);
}

/**
 * The completions of the last word of `line` (the words after the program name, the last one
 * being completed, possibly ''), from the commander program itself (SPEC §3 `dasvc completion`):
 * commands, flags, flag values, profile names, the profile's scopes (after `rpc` and `types`, and
 * for `--scope`), a scope's method names, and a method's param names (`id=`) after it. Only
 * candidates that start with the last word are returned.
 */
export async function completeWords(
  root: Command,
  line: readonly string[],
  sources: CompletionSources,
): Promise<Candidate[]> {
  const current = line.at(-1) ?? '';
  const { command, state, pending, afterDashes } = readLine(root, line.slice(0, -1));

  if (pending) return byPrefix(words(await optionValues(pending.long!, sources, state)), current);
  if (!afterDashes && current.startsWith('--') && current.includes('=')) {
    const [name] = current.split('=', 1) as [string];
    const values = await optionValues(name, sources, state);
    return byPrefix(words(values.map((v) => `${name}=${v}`)), current);
  }
  if (!afterDashes && current.startsWith('-')) {
    const options: Candidate[] = offeredAt(command, root)
      .filter((o) => !state.options.has(o.long!))
      .map((o) => ({ value: o.long!, description: o.description }));
    options.push({ value: '--help', description: 'show help' });
    return byPrefix(options, current);
  }
  if (command === root && state.positional[0] === 'help') {
    // `dasvc help token revoke`: the command path after help.
    let target: Command | undefined = root;
    for (const name of state.positional.slice(1)) target = target && subcommandNamed(target, name);
    return target ? byPrefix(subcommandCandidates(target), current) : [];
  }
  if (visibleSubcommands(command).length > 0 && state.positional.length === 0) {
    const subs = subcommandCandidates(command);
    if (command === root) subs.push({ value: 'help', description: 'show the help of a command' });
    return byPrefix(subs, current);
  }
  const argument = ARGUMENTS[state.path.join(' ')];
  if (!argument) return [];
  return byPrefix(words(await argument(state.positional.length, state, sources, current)), current);
}

function subcommandNamed(command: Command, name: string): Command | undefined {
  return visibleSubcommands(command).find((c) => c.name() === name || c.aliases().includes(name));
}

function subcommandCandidates(command: Command): Candidate[] {
  return visibleSubcommands(command).map((c) => ({
    value: c.name(),
    description: c.description(),
  }));
}

async function optionValues(
  long: string,
  sources: CompletionSources,
  line: CompletedLine,
): Promise<string[]> {
  if (long === '--profile') return sources.profiles();
  if (long === '--scope') return sources.scopes(line.options.get('--profile'));
  if (long === '--auto-approve') return sources.users(line.options.get('--fixtures'));
  return OPTION_VALUES[long] ?? [];
}
