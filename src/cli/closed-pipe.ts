let guarded = false;

/**
 * SPEC §3: output into a closed pipe (`dasvc … | head -1`) ends the command quietly with exit 0.
 * Whoever read stdout has gone, so the rest of the answer has no reader: the process ends at once,
 * as SIGPIPE ends a C tool, but as a success. A closed stderr is ignored (there is nowhere left to
 * say anything) and the command runs on to its own exit code. Installed once per process.
 */
export function endQuietlyOnClosedPipe(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    // Any other failure to write the result (a full disk: `> /dev/full`) is said in one line on
    // stderr, never as a stack trace; the result is lost, so the command failed (exit 1).
    try {
      process.stderr.write(
        `dasvc: cannot write the result to stdout (${error.code ?? error.message})\n`,
      );
    } catch {
      // stderr fails too: nothing is left to tell.
    }
    process.exit(1);
  });
  // A stderr that fails (closed, full) is ignored, whatever the error: there is nowhere left to
  // say anything, and the command runs on to its own exit code.
  process.stderr.on('error', () => undefined);
}
