import { describe, expect, it } from 'vitest';
import { shown, shownJson } from '../../src/util/printable.js';

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
    let deepObject: unknown = 0;
    for (let i = 0; i < 1e6; i++) deepObject = { a: deepObject };
    expect(shownJson(deepObject)).toBe('an object nested too deep to show');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(shownJson(cycle)).toBe('an object');
    expect(shownJson(10n)).toBe('a bigint');
  });
});

describe('shown', () => {
  it('names a value by its JSON when short, else by its type; never a control character', () => {
    expect(shown('x')).toBe('"x"');
    expect(shown('y'.repeat(50))).toBe(`"${'y'.repeat(40)}…"`);
    expect(shown('a\u202eb\u0085')).toBe('"a\\u202eb\\u0085"');
    expect(shown(5)).toBe('5');
    expect(shown(null)).toBe('null');
    expect(shown([1])).toBe('an array');
    expect(shown({})).toBe('an object');
    expect(shown(10n)).toBe('a bigint');
  });
});
