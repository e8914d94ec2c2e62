import { InterruptedError } from '../errors.js';

const controller = new AbortController();
let watched = false;

/**
 * Aborted on Ctrl-C. Whoever asks for it undertakes to close what it opened when it fires (the
 * loopback listener, a pasted-URL reader, an HTTP exchange) and to settle with an error.
 */
export function interruptSignal(): AbortSignal {
  watched = true;
  return controller.signal;
}

/** Whether Ctrl-C was pressed during this run. */
export function wasInterrupted(): boolean {
  return controller.signal.aborted;
}

/**
 * Makes Ctrl-C end every command with exit 130 (SPEC §4), what is open closed first: the signal
 * is aborted and the command unwinds to main. When nothing watches the signal, at a second Ctrl-C,
 * or when the command has not unwound within `graceMs`, the process ends at once.
 * Returns a function that removes the handler.
 */
export function handleInterrupts(graceMs = 2000): () => void {
  const stopNow = () => {
    process.stderr.write('\ndasvc: interrupted\n');
    process.exit(130);
  };
  const onSigint = () => {
    if (controller.signal.aborted || !watched) stopNow();
    controller.abort(new InterruptedError('interrupted'));
    setTimeout(stopNow, graceMs).unref();
  };
  process.on('SIGINT', onSigint);
  return () => process.off('SIGINT', onSigint);
}
