// Colour, the one way dasvc paints text: chalk (which honours NO_COLOR and FORCE_COLOR), loaded
// only when colour can matter, so that piped and CI runs never pay its import.

/** Something written to: a stream, or a buffer in tests; colour depends on whether it is a TTY. */
interface Stream {
  isTTY?: boolean;
}

/** The few styles dasvc uses; identity functions when colour is off. */
export interface Styles {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

/** No colour at all. */
export const plain: Styles = {
  bold: (t) => t,
  dim: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  red: (t) => t,
  cyan: (t) => t,
};

/** The styles for text written to `stream`: `plain` when colour is off (`--no-color`: `enabled` false). */
export async function loadStyles(
  enabled: boolean,
  stream: Stream,
  env: Readonly<Record<string, string | undefined>>,
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
    cyan: (t) => chalk.cyan(t),
  };
}
