import { describe, expect, it } from 'vitest';
import { checkWholeNumber } from '../../src/util/whole-number.js';

describe('checkWholeNumber', () => {
  const check = (value: unknown) => () => checkWholeNumber(value, [1, 10], '--size', 'bad_size');

  it('takes a whole number within its range, the ends included', () => {
    for (const value of [1, 5, 10]) expect(check(value)()).toBe(value);
  });

  it('refuses anything else with its code, naming the range and what it got', () => {
    for (const [value, got] of [
      [0, '0'],
      [11, '11'],
      [2.5, '2.5'],
      ['5', '"5"'],
      [Number.NaN, 'NaN'],
      [null, 'null'],
    ] as const)
      expect(check(value)).toThrow(
        expect.objectContaining({
          kind: 'usage',
          code: 'bad_size',
          message: `--size must be a whole number from 1 to 10, got ${got}`,
        }),
      );
  });
});
