import { NetworkError } from '../errors.js';
import { restoreExact } from '../util/exact-numbers.js';
import { safeJson, terminalText } from '../util/printable.js';
import type { Styles } from '../util/styles.js';

/** Something text can be written to: process.stdout/stderr, or a buffer in tests. */
export interface Writer {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** An error's answer under `--json`: printed by its command, or a document main completes. */
const answers = new WeakMap<object, 'printed' | object>();

/**
 * Marks an error whose command already printed its answer on stdout, one that has no `error`
 * member to give (a batch's array of responses, a `--raw` response, the mock's log), so that main
 * adds no second JSON document there in `--json` mode.
 */
export function stdoutAnswered<E extends object>(error: E): E {
  answers.set(error, 'printed');
  return error;
}

/**
 * Gives an error the object its command answers with (a check's report, the state of an expired
 * session): in `--json` mode main prints that object with the error as its `error` member, one
 * document that is both the answer and the error of SPEC §4.
 */
export function answeredWith<E extends object>(error: E, answer: object): E {
  answers.set(error, answer);
  return error;
}

/** Gives `to` the answer that went with `from` (an error retold as another). */
export function sameAnswer<E extends object>(to: E, from: unknown): E {
  const answer = answerOf(from);
  if (answer !== undefined) answers.set(to, answer);
  return to;
}

/** The answer that goes with this error: already printed, or an object to print with it. */
export function answerOf(error: unknown): 'printed' | object | undefined {
  return typeof error === 'object' && error !== null ? answers.get(error) : undefined;
}

/** Results on stdout, messages on stderr (SPEC §3). */
export class Output {
  constructor(
    readonly stdout: Writer,
    readonly stderr: Writer,
    readonly style: Styles,
    readonly json: boolean,
  ) {}

  /** A JSON result: pretty on a terminal, one line when piped (SPEC §3). */
  result(value: unknown): void {
    let text: string;
    try {
      text = this.stdout.isTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value);
    } catch (error) {
      // An answer nested deeper than JSON.stringify goes (a hostile service): said, not a crash.
      throw new NetworkError(`the answer cannot be printed as JSON (${(error as Error).message})`, {
        code: 'unexpected_response',
      });
    }
    // A result holds what the service sent: escapes keep its value and the terminal quiet, and
    // its long numbers their digits (parseExact).
    this.stdout.write(`${safeJson(restoreExact(String(text)))}\n`);
  }

  /**
   * A text result line on stdout. It may hold what a service sent (a revocation's body, a check's
   * observations): control characters are shown, not sent to the terminal (terminalText).
   */
  line(text: string): void {
    this.stdout.write(`${terminalText(text)}\n`);
  }

  /**
   * A message for the human, on stderr. Messages may quote the service or the command line:
   * their control characters are shown, not sent to the terminal (terminalText).
   */
  info(text: string): void {
    this.stderr.write(`${terminalText(text)}\n`);
  }

  success(text: string): void {
    this.stderr.write(`${this.style.green('✓')} ${terminalText(text)}\n`);
  }

  warn(text: string): void {
    this.stderr.write(`${this.style.yellow('!')} ${terminalText(text)}\n`);
  }
}
