import { describe, expect, it } from 'vitest';
import { checkLibraryOptions } from '../../src/util/library-options.js';

const KNOWN = { baseUrl: 'checked', fixtures: 'string', tell: 'function', env: 'object' } as const;
const check = (options: unknown) => () => checkLibraryOptions(options, KNOWN, 'f()');
const usage = (message: RegExp) =>
  expect.objectContaining({
    kind: 'usage',
    code: 'bad_option',
    message: expect.stringMatching(message),
  });

describe('checkLibraryOptions', () => {
  it('takes nothing, or an object of known options with values of their kind', () => {
    expect(check(undefined)).not.toThrow();
    expect(check({})).not.toThrow();
    expect(check({ baseUrl: 5, fixtures: 'x', tell: () => 0, env: {}, env2: undefined })).toThrow(
      usage(/unknown option "env2"/),
    );
    expect(check({ baseUrl: 5, fixtures: undefined, tell: () => 0, env: {} })).not.toThrow();
  });

  it('refuses what is no object, naming what it got', () => {
    for (const [value, got] of [
      [null, 'null'],
      [5, '5'],
      ['x', '"x"'],
      [[], 'an array'],
      [() => 0, 'a function'],
    ] as const)
      expect(check(value)).toThrow(
        usage(
          new RegExp(
            `^f\\(\\): its options must be an object, got ${got.replace(/[()[\]]/g, '\\$&')}$`,
          ),
        ),
      );
  });

  it('takes a kind of its own: what it accepts, and what it must be in words', () => {
    const own = { mode: { is: (v: unknown) => v === 'on' || v === 'off', must: '"on" or "off"' } };
    const checkOwn = (options: unknown) => () => checkLibraryOptions(options, own, 'f()');
    expect(checkOwn({ mode: 'on' })).not.toThrow();
    expect(checkOwn({ mode: undefined })).not.toThrow();
    expect(checkOwn({ mode: 'auto' })).toThrow(
      usage(/^f\(\): option mode must be "on" or "off", got "auto"$/),
    );
  });

  it('refuses an unknown option, with the known one it may have meant', () => {
    expect(check({ baseURL: 'x' })).toThrow(
      usage(/^f\(\): unknown option "baseURL" \(did you mean baseUrl\?\)$/),
    );
    expect(check({ fixture: 'x' })).toThrow(
      usage(/unknown option "fixture" \(did you mean fixtures\?\)$/),
    );
    // Misspelt as people misspell (letters swapped), not only cut short; and no guess from a
    // first letter alone.
    expect(check({ fixtrues: 'x' })).toThrow(
      usage(/unknown option "fixtrues" \(did you mean fixtures\?\)$/),
    );
    expect(check({ f: 'x' })).toThrow(usage(/^f\(\): unknown option "f"$/));
    expect(check({ colour: true })).toThrow(usage(/^f\(\): unknown option "colour"$/));
    // An inherited name is no option either.
    expect(check(JSON.parse('{"__proto__": {}}'))).toThrow(usage(/unknown option "__proto__"/));
  });

  it('refuses a value of another kind, naming the option', () => {
    expect(check({ tell: 'x' })).toThrow(usage(/^f\(\): option tell must be a function, got "x"$/));
    expect(check({ env: [] })).toThrow(usage(/option env must be an object, got an array$/));
    expect(check({ fixtures: 5n })).toThrow(
      usage(/option fixtures must be a string, got a bigint$/),
    );
    expect(check({ fixtures: 'y'.repeat(100) })).not.toThrow();
    expect(check({ env: 'y'.repeat(100) })).toThrow(usage(/got "y{40}…"$/));
  });
});
