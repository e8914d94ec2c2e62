/**
 * Whether `error` is V8's stack overflow: a value or schema nested deeper than a recursive walk
 * can follow. Other RangeErrors (a string or an array too long) keep their own message.
 */
export function isStackOverflow(error: unknown): error is RangeError {
  return error instanceof RangeError && /call stack/i.test(error.message);
}
