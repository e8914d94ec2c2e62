import { InterruptedError } from '../errors.js';

const controller = new AbortController();
let watched = false;

/**
 * Aborted on Ctrl-C (or SIGTERM). Whoever asks for it undertakes to close what it opened when it
 * fires (the loopback listener, a pasted-URL reader, an HTTP exchange) and to settle with an error.
 */
export function interruptSignal(): AbortSignal {
  watched = true;
  return controller.signal;
}

/** Whether Ctrl-C was pressed (or SIGTERM sent) during this run. */
export function wasInterrupted(): boolean {
  return controller.signal.aborted;
}

/** The signal that stopped the run. */
let stoppedBy: 'SIGINT' | 'SIGTERM' = 'SIGINT';

/** The exit code of a stopped run: 130 for Ctrl-C (SPEC §4), 143 (128 + 15) for SIGTERM. */
export function interruptExitCode(): number {
  return stoppedBy === 'SIGTERM' ? 143 : 130;
}

/**
 * Makes Ctrl-C end every command with exit 130 (SPEC §4), SIGTERM with 143, what is open closed
 * first: the signal is aborted and the command unwinds to main. When nothing watches the signal,
 * at a second Ctrl-C, or when the command has not unwound within `graceMs`, the process ends at
 * once. Returns a function that removes the handlers.
 */
export function handleInterrupts(graceMs = 2000): () => void {
  const stopNow = () => {
    process.stderr.write('\ndasvc: interrupted\n');
    process.exit(interruptExitCode());
  };
  // SIGTERM (a CI job cancelled, `kill`) unwinds as Ctrl-C does: `check` revokes what it
  // obtained, a refresh lets go of the lock; the exit code is the shell's for it, 143.
  const on = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (!controller.signal.aborted) stoppedBy = signal;
    if (controller.signal.aborted || !watched) stopNow();
    controller.abort(new InterruptedError('interrupted'));
    setTimeout(stopNow, graceMs).unref();
  };
  const onSigint = on('SIGINT');
  const onSigterm = on('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  return () => {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  };
}
