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
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
