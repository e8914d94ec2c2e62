// Strings of any code point but the surrogates: what fast-check's `unit: 'binary'` draws,
// without its cost. fast-check builds that unit's reverse mapping (a Map of all 1,114,112 code
// points, ~0.5–0.9 s of CPU) the first time a string arbitrary tokenizes its "dangerous" strings
// (`__proto__`, `constructor`, …) into units; workers keep their modules from file to file, so
// each worker paid it. Here one code point is an integer mapped with an unmapper of its own:
// the dangerous strings are still injected (one of them found the `__proto__=` params bug).
import fc from 'fast-check';

/** Code points below the surrogates keep their number; those above move down past them. */
const SURROGATES = 0xe000 - 0xd800;

const codePoint: fc.Arbitrary<string> = fc.integer({ min: 0, max: 0x10ffff - SURROGATES }).map(
  (n) => String.fromCodePoint(n < 0xd800 ? n : n + SURROGATES),
  (value) => {
    if (typeof value !== 'string') throw new Error('not a string');
    const point = value.codePointAt(0);
    if (point === undefined || value.length !== String.fromCodePoint(point).length)
      throw new Error('not one code point');
    if (point >= 0xd800 && point < 0xe000) throw new Error('a surrogate');
    return point < 0xd800 ? point : point - SURROGATES;
  },
);

/** `fc.string({ unit: 'binary', ...constraints })`, cheaply (see above). */
export function binaryString(
  constraints: Omit<fc.StringConstraints, 'unit'> = {},
): fc.Arbitrary<string> {
  return fc.string({ ...constraints, unit: codePoint });
}
