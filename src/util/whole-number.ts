import { UsageError } from '../errors.js';
import { shown } from './printable.js';

/**
 * A whole number from `min` to `max`, given by the CLI or the library (`what` names both ways),
 * or the usage error `code` saying so.
 */
export function checkWholeNumber(
  value: unknown,
  [min, max]: readonly [number, number],
  what: string,
  code: string,
): number {
  if (Number.isInteger(value) && (value as number) >= min && (value as number) <= max)
    return value as number;
  throw new UsageError(
    `${what} must be a whole number from ${min} to ${max}, got ${shown(value)}`,
    {
      code,
    },
  );
}
