import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExact, restoreExact } from '../../src/util/exact-numbers.js';

/** Through the CLI's round: read exactly, then written as JSON. */
const roundTrip = (text: string, indent?: number) =>
  restoreExact(JSON.stringify(parseExact(text), null, indent));

describe('parseExact and restoreExact', () => {
  it('keep every number a double would round or lose, digit for digit, wherever it is', () => {
    const text =
      '{"id":12345678901234567890,"neg":-9007199254740993,"dec":0.10000000000000000555,' +
      '"big":1e400,"tiny":-2.5e-400,"sub":1.234567890123e-320,"list":[98765432109876543210,[1.00000000000000001]],' +
      '"str":"12345678901234567890","esc":"a\\"12345678901234567890\\\\","small":1.5,"int":42}';
    expect(roundTrip(text)).toBe(text);
    // Pretty, as on a terminal: the same numbers.
    expect(roundTrip(text, 2)).toContain('"id": 12345678901234567890,');
    expect(roundTrip(text, 2)).toContain('    98765432109876543210,');
  });

  it('read as JSON.parse reads everything else, and the values a program sees are plain', () => {
    const value = parseExact('{"a":[1,2.5,-0,1e5,"x",null,true],"b":{"c":123456789012345}}');
    expect(value).toEqual({ a: [1, 2.5, -0, 1e5, 'x', null, true], b: { c: 123456789012345 } });
    // A value already parsed is given back when nothing is to be kept.
    const parsed = { value: { same: true } };
    expect(parseExact('{"same":true}', parsed)).toBe(parsed.value);
  });

  it('a text that is not JSON throws what JSON.parse says about the text as given', () => {
    const text = '{"a":12345678901234567890,}';
    let own: unknown;
    try {
      JSON.parse(text);
    } catch (error) {
      own = error;
    }
    expect(() => parseExact(text)).toThrow((own as Error).message);
  });

  it('is JSON.parse for any JSON without long numbers, and restores to JSON.stringify', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(roundTrip(text)).toBe(JSON.stringify(JSON.parse(text)));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves every number a double holds a number: JSON.stringify never writes one to keep', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const text = JSON.stringify([d, -d]);
        expect(parseExact(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives back any integer as written, however many digits', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.string(), (n, s) => {
        const text = JSON.stringify({ n: '#', s, list: ['#', s] }).replaceAll('"#"', String(n));
        expect(roundTrip(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
