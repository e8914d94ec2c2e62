import fc from 'fast-check';
import { binaryString } from '../helpers/binary-string.js';
import { describe, expect, it } from 'vitest';
import { matchesStored } from '../../src/util/secrets.js';

describe('matchesStored: one hash per check, still exact', () => {
  it('a stored secret is compared through its digest, per owner', () => {
    const a = { secret: 'alpha' };
    const b = { secret: 'beta' };
    expect(matchesStored(a, a.secret, 'alpha')).toBe(true);
    expect(matchesStored(a, a.secret, 'alph')).toBe(false);
    expect(matchesStored(b, b.secret, 'alpha')).toBe(false);
    expect(matchesStored(b, b.secret, 'beta')).toBe(true);
  });
  it('a stored secret matches exactly itself, whatever the lengths (128-byte buffers, else digests)', () => {
    const long = 'x'.repeat(128);
    const cases: [string, string, boolean][] = [
      [long, long, true],
      [long, long.slice(1), false],
      [`${long}y`, `${long}y`, true],
      [`${long}y`, long, false], // the stored secret's first 128 bytes, but not all of it
      [long, `${long}y`, false],
      ['é'.repeat(70), 'é'.repeat(70), true], // 140 bytes
      ['é'.repeat(70), 'é'.repeat(64), false], // its first 128 bytes
      ['abc', 'abc\0', false], // padding is no part of the secret
      ['abc\0', 'abc', false],
      ['', '', true],
    ];
    for (const [stored, candidate, expected] of cases) {
      expect(matchesStored({}, stored, candidate)).toBe(expected);
      const owner = {}; // the same owner again, after a long candidate computed its digest
      matchesStored(owner, stored, 'z'.repeat(200));
      expect(matchesStored(owner, stored, candidate)).toBe(expected);
    }
    fc.assert(
      fc.property(
        binaryString({ maxLength: 90 }),
        binaryString({ maxLength: 90 }),
        (stored, other) => {
          const owner = {};
          return (
            matchesStored(owner, stored, stored) &&
            matchesStored(owner, stored, other) === (stored === other)
          );
        },
      ),
    );
  });
});
