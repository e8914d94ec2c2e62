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

/** How soon the echo of the first signal comes, at the latest, when another listener sends it. */
const ECHO_MS = 1000;

/** The signal that stopped the run. */
let stoppedBy: 'SIGINT' | 'SIGTERM' = 'SIGINT';

/** The exit code of a stopped run: 130 for Ctrl-C (SPEC §4), 143 (128 + 15) for SIGTERM. */
export function interruptExitCode(): number {
  return stoppedBy === 'SIGTERM' ? 143 : 130;
}

/**
 * Makes Ctrl-C end every command with exit 130 (SPEC §4), SIGTERM with 143, what is open closed
 * first: the signal is aborted and the command unwinds to main. When nothing watches the signal,
 * at a second Ctrl-C (not the echo of the first), or when the command has not unwound within
 * `graceMs`, the process ends at once. Returns a function that removes the handlers.
 */
export function handleInterrupts(graceMs = 2000): () => void {
  const stopNow = () => {
    process.stderr.write('\ndasvc: interrupted\n');
    process.exit(interruptExitCode());
  };
  let firstAt = 0;
  let echoExpected = false;
  // SIGTERM (a CI job cancelled, `kill`) unwinds as Ctrl-C does: `check` revokes what it
  // obtained, a refresh lets go of the lock; the exit code is the shell's for it, 143.
  const on = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (controller.signal.aborted) {
      // The config file's writer (conf, through atomically's when-exit) listens too, and sends
      // the same signal again once its own cleanup has run: that one echo is no second Ctrl-C.
      const echo = echoExpected && signal === stoppedBy && performance.now() - firstAt < ECHO_MS;
      echoExpected = false;
      if (echo) return;
      stopNow();
    }
    stoppedBy = signal;
    firstAt = performance.now();
    echoExpected = process.listenerCount(signal) > 1;
    if (!watched) stopNow();
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

const serverStop = new AbortController();

/**
 * Aborted at the first SIGINT or SIGTERM of a server command (`dasvc mock`), the signal's name its
 * reason. Stopping is a server's normal end: it closes what it holds (the state file, the
 * recording) however long that takes, with no grace timer.
 */
export function serverStopSignal(): AbortSignal {
  return serverStop.signal;
}

/**
 * Makes the first SIGINT or SIGTERM abort serverStopSignal(); the handlers go with it, so that a
 * second signal ends the process at once, as by default. Returns a function that removes them.
 */
export function handleServerStops(): () => void {
  const stop = (signal: NodeJS.Signals) => {
    release();
    serverStop.abort(signal);
  };
  const release = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return release;
}
