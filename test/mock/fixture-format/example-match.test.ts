import { describe, expect, it } from 'vitest';
import { findExample, sameJson } from '../../../src/mock/fixture-format/example-match.js';

describe('example matching', () => {
  it('deep equality with member order ignored, array order kept', () => {
    expect(sameJson({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    const examples = [{ params: { id: 1 }, outcome: { result: 'one' } }];
    expect(findExample(examples, { id: 1 })?.outcome).toEqual({ result: 'one' });
    expect(findExample(examples, { id: '1' })).toBeUndefined();
  });
});
