import type { Command } from 'commander';
import type { Writer } from './output.js';

/** Readable input (stdin) as the commands use it. */
export interface Input extends AsyncIterable<string | Buffer> {
  isTTY?: boolean;
}

/**
 * The terminal and environment of one CLI run. Absent parts are the process's own; a test gives
 * all of them to run the whole CLI (argv to exit code) in-process, with no child process.
 */
export interface ContextIo {
  stdout?: Writer;
  stderr?: Writer;
  stdin?: Input;
  env?: NodeJS.ProcessEnv;
  /** Aborted to stand for Ctrl-C; the process's SIGINT handling when absent. */
  signal?: AbortSignal;
  /** Opens the authorization URL; DASVC_BROWSER, BROWSER or the system's browser when absent. */
  openBrowser?: (url: string) => Promise<void>;
  /** A login's wait for the browser after an approval at once (ms); the flow's own when absent. */
  approvedAtOnceWaitMs?: number;
}

const ioOfProgram = new WeakMap<Command, ContextIo>();

/** Gives a program (and so each of its commands) the I/O of its run. */
export function attachIo(program: Command, io: ContextIo): void {
  ioOfProgram.set(program, io);
}

/** The I/O of the run a command belongs to ({} = the process's). */
export function ioOf(command: Command): ContextIo {
  let root = command;
  while (root.parent) root = root.parent;
  return ioOfProgram.get(root) ?? {};
}
