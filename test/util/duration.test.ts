import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/util/duration.js';
import { UsageError } from '../../src/errors.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90],
    ['15m', 900],
    ['1h', 3600],
    ['30d', 2_592_000],
    ['250ms', 0.25],
    ['1h30m', 5400],
    ['42', 42],
    [7, 7],
  ] as const)('reads %s as %d seconds', (input, seconds) => {
    expect(parseDuration(input)).toBe(seconds);
  });

  it.each(['', 'h', '1x', '1h junk', '-5', 'abc1h'])('refuses %j as a usage error', (input) => {
    expect(() => parseDuration(input, '--code-ttl')).toThrow(UsageError);
  });

  it('refuses a negative or infinite number', () => {
    // The same snake_case code as a bad string, for a library caller's `error.code`.
    for (const input of [-1, Number.POSITIVE_INFINITY])
      expect(() => parseDuration(input)).toThrow(
        expect.objectContaining({ name: 'UsageError', code: 'bad_duration' }),
      );
  });
});

describe('formatDuration', () => {
  it('shows the two largest units', () => {
    expect(formatDuration(3598)).toBe('59m 58s');
    expect(formatDuration(2_592_000 - 3600)).toBe('29d 23h');
    expect(formatDuration(12)).toBe('12s');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(-5)).toBe('0s');
  });
});
