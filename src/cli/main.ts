import { DasvcError, ExitCode, InterruptedError } from '../errors.js';
import { packageVersion } from '../package-root.js';
import { printable, terminalText } from '../util/printable.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import type { ContextIo } from './io.js';
import { jsonErrorDocument, type JsonErrorFields } from './json-error.js';
import type { Writer } from './output.js';

/** Global flags that may stand beside `--version` (which then answers alone). */
const VERSION_FLAGS = new Set(['--version', '--json', '--verbose', '--no-color']);

/**
 * Runs the CLI and returns its exit code. The only place where an error becomes an exit code and
 * a message (SPEC §4); commands throw, they never exit. `io` runs it in-process (tests): its
 * stdout, stderr, stdin, environment and Ctrl-C signal stand for the process's, which it leaves
 * alone (no SIGINT handler, no pipe guard, no exit).
 */
export async function run(argv: string[], io?: ContextIo): Promise<number> {
  if (!io) endQuietlyOnClosedPipe();
  const stdout: Writer = io?.stdout ?? process.stdout;
  const stderr: Writer = io?.stderr ?? process.stderr;
  // `dasvc --version` answers before commander and the commands load: it costs little more than
  // starting node.
  // With --json (and other global flags) it is one JSON document, as every --json output is.
  const flags = argv.slice(2);
  if (flags.includes('--version') && flags.every((flag) => VERSION_FLAGS.has(flag))) {
    const version = packageVersion();
    const json = flags.includes('--json');
    stdout.write(json ? `${JSON.stringify({ version })}\n` : `${version}\n`);
    return ExitCode.ok;
  }
  if (argv[2] === '__complete' && !io) {
    // The completion scripts' helper (SPEC §3): it reads local files only, so it answers at once.
    const { completeLine } = await import('./commands/completion/complete.js');
    await completeLine(argv.slice(3), process);
    return ExitCode.ok;
  }
  if (argv[2] === '__complete-refresh' && !io) {
    // Started by __complete, detached: refills the method cache for the next TAB.
    const { refreshInBackground } = await import('./commands/completion/refresh-methods.js');
    await refreshInBackground(argv.slice(3), process.env);
    return ExitCode.ok;
  }
  const json = argv.includes('--json');
  const [
    { buildProgram, commandNameIn },
    { handleInterrupts, handleServerStops, wasInterrupted, interruptExitCode },
    output,
    { helpAsFlag, helpWordIn },
    { shapeHelp },
    { attachIo },
  ] = await Promise.all([
    import('./program.js'),
    import('./interrupt.js'),
    import('./output.js'),
    import('./help-argv.js'),
    import('./help-text.js'),
    import('./io.js'),
  ]);
  const word = helpWordIn(argv);
  if (word !== undefined) {
    const { HELP_TOPICS } = await import('./commands/help/topics.js');
    const topic = Object.hasOwn(HELP_TOPICS, word) ? HELP_TOPICS[word] : undefined;
    if (topic) {
      stdout.write(topic());
      return ExitCode.ok;
    }
  }
  // `dasvc mock` is a server: Ctrl-C and SIGTERM are its normal end, reached once it has closed.
  const stopHandling = io
    ? () => undefined
    : commandNameIn(argv) === 'mock'
      ? handleServerStops()
      : handleInterrupts();
  const interrupted = () => (io ? io.signal?.aborted === true : wasInterrupted());
  // A run stopped by SIGTERM ends 143, not Ctrl-C's 130.
  const stoppedCode = (code: number) =>
    !io && code === ExitCode.interrupted ? interruptExitCode() : code;
  let usageHint: string | undefined;
  const say: Say = {
    stdout,
    stderr,
    json,
    answerOf: output.answerOf,
    stoppedCode,
    usageHint: () => usageHint,
  };
  try {
    const program = await buildProgram(argv);
    if (io) attachIo(program, io);
    shapeHelp(program, (hint) => (usageHint = hint));
    // Subcommands inherit exitOverride (so that their usage errors reach report() too) and the
    // run's output streams.
    const streams = io && {
      writeOut: (text: string) => void stdout.write(text),
      writeErr: (text: string) => void stderr.write(text),
      getOutHelpWidth: () => 80,
      getErrHelpWidth: () => 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    };
    const inherit = (command: typeof program) => {
      if (streams) command.configureOutput(streams);
      for (const sub of command.commands) {
        sub.exitOverride();
        inherit(sub);
      }
    };
    inherit(program);
    await program.parseAsync(helpAsFlag(program, argv));
    if (interrupted()) return stoppedCode(await report(new InterruptedError('interrupted'), say));
    return ExitCode.ok;
  } catch (error) {
    const stopped = interrupted() && !(error instanceof InterruptedError);
    // Told as an interruption, with the answer the command gave (a report printed or to print).
    const told = stopped ? output.sameAnswer(new InterruptedError('interrupted'), error) : error;
    const code = await report(told, say);
    return interrupted() ? stoppedCode(code) : code;
  } finally {
    stopHandling();
  }
}

/** Where and how report() says an error. */
interface Say {
  stdout: Writer;
  stderr: Writer;
  json: boolean;
  answerOf: (error: unknown) => 'printed' | object | undefined;
  /** The exit code the run ends with for `code`: an interruption by SIGTERM is 143. */
  stoppedCode: (code: number) => number;
  /** The hint commander's usage error was said with (`dasvc rpc --help`). */
  usageHint: () => string | undefined;
}

interface CommanderErrorLike {
  code: string;
  exitCode: number;
  message: string;
}

function isCommanderError(error: unknown): error is CommanderErrorLike {
  // Duck-typed so that main.ts does not have to load commander for `--version`.
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof Error &&
    !(error instanceof DasvcError) &&
    typeof code === 'string' &&
    code.startsWith('commander.')
  );
}

/**
 * `--json`: the error as one JSON document on stdout, so that scripts read stdout only; nothing
 * when the command printed its answer, and the error as a member of the answer it gave.
 */
function printJsonError(
  stdout: Writer,
  fields: JsonErrorFields,
  answer?: 'printed' | object,
): void {
  if (answer === 'printed') return;
  // An answer is laid out as the command would print it (Output.result): pretty on a terminal.
  stdout.write(`${jsonErrorDocument(fields, answer, stdout.isTTY ? 2 : undefined)}\n`);
}

async function report(error: unknown, say: Say): Promise<number> {
  const { stdout, stderr, json, answerOf, stoppedCode } = say;
  if (isCommanderError(error)) {
    // commander already printed its message (or the help); explicit help and version are successes.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // `dasvc help [command]` is a success too; help shown because a command was missing (`dasvc`,
    // `dasvc token`) comes with exit code 1 and falls through to the usage error below.
    if (error.code === 'commander.help' && error.exitCode === 0) return 0;
    if (json) {
      const missing = error.code === 'commander.help';
      printJsonError(stdout, {
        exitCode: ExitCode.usage,
        code: missing ? 'missing_command' : error.code.replace(/^commander\./, ''),
        message: missing ? 'a command is missing' : error.message.replace(/^error: /, ''),
        hint: say.usageHint(),
      });
    }
    return ExitCode.usage;
  }
  if (error instanceof InterruptedError && error.code === 'prompt_closed') {
    // Ctrl-C at a prompt: the prompt has said it was closed; nothing more (SPEC §3).
    if (json)
      printJsonError(stdout, {
        exitCode: stoppedCode(error.exitCode),
        code: 'interrupted',
        message: error.message,
      });
    return error.exitCode;
  }
  if (error instanceof DasvcError) {
    const rpcError = error.rpc;
    if (rpcError) {
      // A JSON-RPC error is printed exactly as SPEC §3 writes it: `error <code>: <message>` (and data).
      // The service's words, made safe for the terminal (terminalText).
      // The message on its one line: a line break in it would forge a line of dasvc's own.
      stderr.write(`error ${rpcError.code}: ${printable(rpcError.message)}\n`);
      if (rpcError.data !== undefined)
        stderr.write(`data: ${terminalText(dataText(rpcError.data))}\n`);
      if (error.hint) stderr.write(`hint: ${terminalText(error.hint)}\n`);
      if (json)
        printJsonError(
          stdout,
          {
            exitCode: stoppedCode(error.exitCode),
            code: error.code ?? 'jsonrpc_error',
            message: error.message,
            hint: error.hint,
            rpc: rpcError,
          },
          answerOf(error),
        );
      return error.exitCode;
    }
    // Messages quote the service (error_description, a redirect's error) and the command line.
    stderr.write(`dasvc: ${terminalText(error.message)}\n`);
    // Loaded only on this path: the hints read profile names, which a command that succeeds (or
    // `dasvc mock` starting) has no need of.
    const { hintFor } = await import('./hints/hint-for.js');
    const hint = hintFor(error);
    if (hint) stderr.write(`hint: ${terminalText(hint)}\n`);
    if (json)
      printJsonError(
        stdout,
        {
          exitCode: stoppedCode(error.exitCode),
          code: error.code ?? error.name,
          message: error.message,
          hint,
        },
        answerOf(error),
      );
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stderr.write(`dasvc: unexpected error (a bug; please report it)\n${stack}\n`);
  if (json)
    printJsonError(stdout, {
      exitCode: ExitCode.service,
      code: 'internal_error',
      message: error instanceof Error ? error.message : '',
    });
  return ExitCode.service;
}

/** An error's `data` as JSON, or why not (nested deeper than JSON.stringify goes). */
function dataText(data: unknown): string {
  try {
    return JSON.stringify(data);
  } catch (error) {
    return `(cannot be shown: ${(error as Error).message})`;
  }
}
