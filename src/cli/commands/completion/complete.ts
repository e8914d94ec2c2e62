import type { Env } from '../../../util/env.js';
import type { Writer } from '../../output.js';
import { shapeHelp } from '../../help-text.js';
import { buildProgram } from '../../program.js';
import { bashReplies, dequoteBash } from './bash-words.js';
import { completesFiles, completeWords, type Candidate } from './complete-words.js';
import { storeSources } from './completion-sources.js';
import { FILES } from './run.js';
import { isPlausibleWord, needsNoQuoting } from './plausible-words.js';

/** The shell a completion script quotes for, as it tells `__complete` with `--shell=`. */
type Shell = 'bash' | 'zsh' | 'fish';

/** What a completion script asks: `__complete [--shell=S] [--files] [--word=W] -- <words…>`. */
export interface CompleteRequest {
  /** Absent: a script that quotes nothing (one loaded before words were quoted). */
  shell?: Shell;
  /**
   * The script reads the FILES line: it offers the shell's file names only when told. Absent: an
   * older script, which offers them whenever nothing is printed.
   */
  files?: boolean;
  /** bash: the part of the last word that readline replaces (words are cut at `=` and `:`). */
  word: string;
  /** The words after the program name, the last one being completed; as typed for bash. */
  words: string[];
}

/** Reads the arguments of `__complete`; an option it does not know is left alone. */
export function parseCompleteRequest(args: readonly string[]): CompleteRequest {
  const dashes = args.indexOf('--');
  const options = dashes < 0 ? [] : args.slice(0, dashes);
  const words = args.slice(dashes + 1);
  const valueOf = (name: string) =>
    options.find((o) => o.startsWith(`--${name}=`))?.slice(name.length + 3);
  const shell = valueOf('shell');
  return {
    ...(shell === 'bash' || shell === 'zsh' || shell === 'fish' ? { shell } : {}),
    ...(options.includes('--files') ? { files: true } : {}),
    word: valueOf('word') ?? words.at(-1) ?? '',
    words,
  };
}

/** One line per candidate, tab, description: what the zsh and fish scripts read. */
function lineOf({ value, description }: Candidate): string {
  const clean = (text: string) => text.replace(/[\t\r\n]+/g, ' ');
  return description ? `${value}\t${clean(description)}` : value;
}

/**
 * The lines `__complete` prints for `candidates`: only plausible words, and for bash each quoted
 * as readline must insert it (zsh's compadd and fish quote what they insert). A script that names
 * no shell gets only the words that need no quoting anywhere.
 */
export function outputLines(candidates: Candidate[], request: CompleteRequest): string[] {
  const offered = candidates.filter((c) => isPlausibleWord(c.value));
  if (request.shell === 'bash') {
    const typed = request.words.at(-1) ?? '';
    return bashReplies(
      offered.map((c) => c.value),
      typed,
      request.word,
    );
  }
  return (request.shell ? offered : offered.filter((c) => needsNoQuoting(c.value))).map(lineOf);
}

/** Starts `dasvc __complete-refresh <profile> <scope>` detached, with no terminal and no output. */
function startRefresher(profile: string, scope: string): void {
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(process.execPath, [process.argv[1]!, '__complete-refresh', profile, scope], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
}

/**
 * `dasvc __complete [--shell=S] [--word=W] -- <words…>` (hidden; called by the completion
 * scripts): prints the completions of the last word, from the program and local files only, so it
 * answers at once (SPEC §3). Never prompts, never fails: an error prints nothing.
 */
export async function completeLine(
  args: readonly string[],
  io: { env: Env; stdout: Writer; refill?: (profile: string, scope: string) => void },
): Promise<void> {
  try {
    const request = parseCompleteRequest(args);
    const words =
      request.shell === 'bash' ? request.words.map((w) => dequoteBash(w).value) : request.words;
    const root = await buildProgram(['node', 'dasvc']);
    shapeHelp(root);
    const sources = storeSources({
      env: io.env,
      now: Date.now,
      refill: io.refill ?? startRefresher,
    });
    const lines = outputLines(await completeWords(root, words, sources), request);
    if (request.files && completesFiles(root, words)) lines.push(FILES);
    if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
  } catch {
    // Completion says nothing rather than an error in the middle of the user's command line.
  }
}
