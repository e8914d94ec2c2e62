import { describe, expect, it } from 'vitest';
import type { MethodFixture } from '../../../src/mock/fixture-format/fixture-format.js';
import { bindParams } from '../../../src/mock/routes/rpc-methods.js';

describe('bindParams with params named like Object.prototype’s', () => {
  const method: MethodFixture = {
    name: 'm',
    params: [
      { name: '__proto__', required: false },
      { name: 'constructor', required: true },
    ],
    paramStructure: 'either',
    examples: [],
  };

  it('binds them as own members, by name and by position', () => {
    const byName = bindParams(method, JSON.parse('{"__proto__":1,"constructor":2}'));
    expect(JSON.stringify(byName)).toBe('{"named":{"__proto__":1,"constructor":2}}');
    const byPosition = bindParams(method, [1, 2]);
    expect(JSON.stringify(byPosition)).toBe('{"named":{"__proto__":1,"constructor":2}}');
  });

  it('a required one not given is missing, whatever Object.prototype has', () => {
    expect(bindParams(method, {})).toEqual({
      error: {
        code: -32602,
        message: 'Invalid params',
        data: 'missing required param "constructor"',
      },
    });
  });
});
