import { describe, expect, it } from 'vitest';
import { utf8Text } from '../../src/util/utf8-text.js';

describe('utf8Text', () => {
  it('decodes a Buffer, or any view, over its own range only, up to `end`', () => {
    const pool = Buffer.from('xx{"é":1}yy');
    expect(utf8Text(pool.subarray(2, 10))).toBe('{"é":1}');
    const view = new Uint8Array(pool.buffer, pool.byteOffset + 2, 8);
    expect(utf8Text(view)).toBe('{"é":1}');
    expect(utf8Text(view, 2)).toBe('{"');
    expect(utf8Text(new Uint8Array(0))).toBe('');
  });
});
