import { UsageError } from '../errors.js';
import { shown } from './printable.js';

/**
 * A port to listen on, from the CLI or the library: a whole number from 0 (any free port) to
 * 65535. node:http would take a string for a pipe path, and throws RangeErrors of its own.
 */
export function checkPort(value: unknown, what: string): number {
  if (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65_535)
    return value as number;
  throw new UsageError(`${what} must be a whole number from 0 to 65535, got ${shown(value)}`, {
    code: 'bad_port',
  });
}
