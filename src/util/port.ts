import { checkWholeNumber } from './whole-number.js';

/**
 * A port to listen on, from the CLI or the library: a whole number from 0 (any free port) to
 * 65535. node:http would take a string for a pipe path, and throws RangeErrors of its own.
 */
export function checkPort(value: unknown, what: string): number {
  return checkWholeNumber(value, [0, 65_535], what, 'bad_port');
}
