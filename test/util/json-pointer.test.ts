import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapeSegment,
  pointerKeys,
  unescapeSegment,
  valueAt,
} from '../../src/util/json-pointer.js';

describe('escapeSegment', () => {
  it.each([
    ['a/b', 'a~1b'],
    ['m~n', 'm~0n'],
    ['~1', '~01'],
    ['/~', '~1~0'],
    ['', ''],
    [3, '3'],
  ] as const)('writes %j as %j', (key, segment) => {
    expect(escapeSegment(key)).toBe(segment);
  });
});

describe('unescapeSegment', () => {
  it.each([
    ['a~1b', 'a/b'],
    ['m~0n', 'm~n'],
    // `~1` is read before `~0`: the other order would make "~01" a "/".
    ['~01', '~1'],
    ['~0~1', '~/'],
    ['~2', '~2'],
  ])('reads %j as %j', (segment, key) => {
    expect(unescapeSegment(segment)).toBe(key);
  });

  it('gives back every key it escaped', () => {
    // Keys over an alphabet heavy in the two escaped characters and their digits.
    const key = fc.string({ unit: fc.constantFrom('~', '/', '0', '1', 'a'), maxLength: 12 });
    fc.assert(
      fc.property(key, (k) => unescapeSegment(escapeSegment(k)) === k),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string(), (k) => unescapeSegment(escapeSegment(k)) === k),
      { numRuns: 200 },
    );
  });
});

describe('pointerKeys', () => {
  it('reads a pointer as the keys it names', () => {
    expect(pointerKeys('')).toEqual([]);
    expect(pointerKeys('/')).toEqual(['']);
    expect(pointerKeys('/a~1b/0/m~0n')).toEqual(['a/b', '0', 'm~n']);
  });

  it('decodes each segment before unescaping it', () => {
    // A URI fragment: %25 is a '%', and an escaped "~1" stays a key with a "~1" in it.
    expect(pointerKeys('/c%25d/x~01', decodeURIComponent)).toEqual(['c%d', 'x~1']);
    expect(pointerKeys('/%7E1', decodeURIComponent)).toEqual(['/']);
  });

  it('is the inverse of joining escaped keys', () => {
    const keys = fc.array(fc.string(), { maxLength: 5 });
    fc.assert(
      fc.property(keys, (ks) => {
        const pointer = ks.map((k) => `/${escapeSegment(k)}`).join('');
        expect(pointerKeys(pointer)).toEqual(ks);
      }),
      { numRuns: 200 },
    );
  });
});

describe('valueAt', () => {
  const doc = { 'a/b': [10, { 'm~n': 'found' }], '': 'empty key' };

  it('follows object members and array indices', () => {
    expect(valueAt(doc, [])).toBe(doc);
    expect(valueAt(doc, pointerKeys('/a~1b/1/m~0n'))).toBe('found');
    expect(valueAt(doc, pointerKeys('/a~1b/0'))).toBe(10);
    expect(valueAt(doc, pointerKeys('/'))).toBe('empty key');
  });

  it('gives undefined where a member is missing or the value has none', () => {
    expect(valueAt(doc, ['nothing'])).toBeUndefined();
    expect(valueAt(doc, ['a/b', '2'])).toBeUndefined();
    expect(valueAt(doc, ['a/b', '0', 'x'])).toBeUndefined();
    expect(valueAt(null, ['a'])).toBeUndefined();
  });

  it('follows own members only, not what a JSON value inherits', () => {
    expect(valueAt(doc, ['constructor'])).toBeUndefined();
    expect(valueAt(doc, ['__proto__'])).toBeUndefined();
    expect(valueAt(doc, ['a/b', 'length'])).toBe(2);
  });
});
