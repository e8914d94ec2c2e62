import { describe, expect, it } from 'vitest';
import { shownJson } from '../../src/util/printable.js';

describe('shownJson', () => {
  it('quotes a value as JSON, cut at its length and made printable', () => {
    expect(shownJson({ a: 'b' })).toBe('{"a":"b"}');
    expect(shownJson('x'.repeat(100), 10)).toBe(`"${'x'.repeat(9)}…`);
    expect(shownJson('\u001b[31m')).toBe('"\\u001b[31m"');
  });

  it('names a value nested too deep, a cycle and a BigInt each for what it is', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 1e6; i++) deep = [deep];
    expect(shownJson(deep)).toBe('an array nested too deep to show');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(shownJson(cycle)).toBe('an object');
    expect(shownJson(10n)).toBe('a bigint');
  });
});
