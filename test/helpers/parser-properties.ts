// What the property tests of the parsers of untrusted input share, each in its module's tests.
import { binaryString } from './binary-string.js';

/**
 * Property tests of what parses untrusted input: whatever arrives, the parser
 * answers or throws its own typed error, never anything else. A fixed count from the fixed seed; a
 * failure prints fast-check's seed and path (rerun with `{ seed, path }` to replay it).
 */
export const RUNS = { numRuns: 300 };

/** Calls fn: its answer, or undefined when it threw a `kind` (any other throw fails the test). */
export function answerOrThrown<T, E extends Error>(
  fn: () => T,
  kind: abstract new (...args: never[]) => E,
  checkThrown: (error: E) => void = () => {},
): T | undefined {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof kind)) throw error;
    checkThrown(error);
    return undefined;
  }
}

/** Short strings of any code point but the surrogates (see binary-string.ts). */
export const text = binaryString({ maxLength: 60 });
