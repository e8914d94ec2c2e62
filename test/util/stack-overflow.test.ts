import { describe, expect, it } from 'vitest';
import { isStackOverflow } from '../../src/util/stack-overflow.js';

function overflow(): unknown {
  const deep = (n: number): number => deep(n + 1) + 1;
  try {
    return deep(0);
  } catch (error) {
    return error;
  }
}

function caught(thunk: () => unknown): unknown {
  try {
    return thunk();
  } catch (error) {
    return error;
  }
}

describe('isStackOverflow', () => {
  it("is V8's own overflow, from a walk or from JSON.stringify", () => {
    expect(isStackOverflow(overflow())).toBe(true);
    let nested: unknown = 0;
    for (let i = 0; i < 1e6; i++) nested = [nested];
    expect(isStackOverflow(caught(() => JSON.stringify(nested)))).toBe(true);
  });

  it('is not another RangeError, nor anything else', () => {
    expect(isStackOverflow(caught(() => new Array(-1)))).toBe(false);
    expect(isStackOverflow(caught(() => 'x'.repeat(-1)))).toBe(false);
    expect(isStackOverflow(new Error('Maximum call stack size exceeded'))).toBe(false);
    expect(isStackOverflow('Maximum call stack size exceeded')).toBe(false);
  });
});
