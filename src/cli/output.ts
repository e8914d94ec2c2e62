import { NetworkError } from '../errors.js';
import { terminalText } from '../util/printable.js';

/** Something text can be written to: process.stdout/stderr, or a buffer in tests. */
export interface Writer {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** The few styles dasvc uses; identity functions when colour is off. */
export interface Styles {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
}

/** No colour at all. */
export const plain: Styles = {
  bold: (t) => t,
  dim: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  red: (t) => t,
};

/**
 * Colour for stderr messages: chalk (which honours NO_COLOR/FORCE_COLOR), loaded only when it can
 * matter, so piped and CI runs never pay its import. `--no-color` forces it off.
 */
export async function loadStyles(
  enabled: boolean,
  stream: Writer,
  env: NodeJS.ProcessEnv,
): Promise<Styles> {
  if (!enabled || env.NO_COLOR || (!stream.isTTY && !env.FORCE_COLOR)) return plain;
  const { Chalk, supportsColor, supportsColorStderr } = await import('chalk');
  // The level of the stream being coloured: chalk's default is stdout's, which is no terminal
  // when the result is piped (`dasvc token refresh | cat`) while messages still reach one.
  const support = stream === process.stderr ? supportsColorStderr : supportsColor;
  const chalk = new Chalk({ level: support ? support.level : 0 });
  if (chalk.level === 0) return plain;
  return {
    bold: (t) => chalk.bold(t),
    dim: (t) => chalk.dim(t),
    green: (t) => chalk.green(t),
    yellow: (t) => chalk.yellow(t),
    red: (t) => chalk.red(t),
  };
}

const answeredOnStdout = new WeakSet<object>();

/**
 * Marks an error whose command already printed its answer on stdout (the state of an expired
 * session, a batch with failed calls, a `--raw` error response), so that main adds no second JSON
 * document there in `--json` mode.
 */
export function stdoutAnswered<E extends object>(error: E): E {
  answeredOnStdout.add(error);
  return error;
}

/** Whether stdout already carries the answer that goes with this error. */
export function isStdoutAnswered(error: unknown): boolean {
  return typeof error === 'object' && error !== null && answeredOnStdout.has(error);
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
    this.stdout.write(`${text}\n`);
  }

  /** A text result line on stdout. */
  line(text: string): void {
    this.stdout.write(`${text}\n`);
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
