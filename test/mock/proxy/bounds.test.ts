// `--record` bounds: an example past its size is kept cut down, valid JSON of the same types, and
// nothing nested past the depth bound is kept.
import { describe, expect, it } from 'vitest';
import { bound, RECORD_DEPTH, tooDeep } from '../../../src/mock/proxy/bounds.js';
import { inferSchema } from '../../../src/mock/proxy/infer-schema.js';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('bound', () => {
  it('keeps a value within its budget as it is (the same object)', () => {
    const value = { a: [1, 2, 3], b: 'text', c: { d: null, e: true } };
    const kept = bound(value, 1000);
    expect(kept).toEqual({ value, bytes: bytes(value), truncated: false, cuts: [] });
    expect(kept.value).toBe(value);
  });

  it('cuts a big value to about its budget; types and member names are kept', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({
      id: i,
      name: `row ${i}`,
      tags: ['a', 'b'],
    }));
    const value = { total: rows.length, more: true, rows, note: 'x'.repeat(5000), after: {} };
    const kept = bound(value, 64 * 1024);
    expect(kept.truncated).toBe(true);
    expect(kept.cuts).toEqual(['size']);
    const cut = kept.value as typeof value;
    expect(bytes(cut)).toBeLessThanOrEqual(64 * 1024);
    expect(kept.bytes).toBe(bytes(cut));
    // The small members beside a huge list are kept, each member keeps its type.
    expect(cut.total).toBe(20_000);
    expect(cut.more).toBe(true);
    expect(Object.keys(cut)).toEqual(['total', 'more', 'rows', 'note', 'after']);
    expect(cut.rows.length).toBeGreaterThan(100);
    expect(cut.rows.length).toBeLessThan(20_000);
    expect(cut.rows).toEqual(rows.slice(0, cut.rows.length));
    expect(inferSchema(cut)).toEqual(inferSchema(value));
  });

  it('counts the bytes as the file indents them, from the level given', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: i, tags: ['a', { b: null }] }));
    for (const level of [0, 3, 7]) {
      const kept = bound({ rows, n: 1 }, 20_000, level);
      const text = JSON.stringify(kept.value, null, 2);
      // As written at `level`: each line indented by 2 × level more.
      const lines = text.split('\n').length;
      expect(kept.bytes).toBe(Buffer.byteLength(text) + (lines - 1) * 2 * level);
      expect(kept.bytes).toBeLessThanOrEqual(20_000);
      expect(kept.bytes).toBeGreaterThan(19_000);
    }
  });

  it('cuts a long string on a character boundary and marks the cut', () => {
    const text = '😀'.repeat(1000);
    const kept = bound(text, 101);
    const cut = kept.value as string;
    expect(kept.truncated).toBe(true);
    expect(cut.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(cut))).toBeLessThanOrEqual(101);
    expect(text.startsWith(cut.slice(0, -1))).toBe(true);
    expect(cut.slice(0, -1)).not.toMatch(/[\ud800-\udbff]$/);
  });

  it('counts escapes: a string of quotes is measured as JSON writes it', () => {
    const kept = bound('"'.repeat(100), 50);
    expect(kept.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(kept.value))).toBeLessThanOrEqual(50);
  });

  it('nothing deeper than the depth bound: an empty value of its type', () => {
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < RECORD_DEPTH + 10; i++) deep = [deep];
    expect(tooDeep(deep)).toBe(true);
    const kept = bound(deep, 1_000_000);
    expect(kept.truncated).toBe(true);
    expect(kept.cuts).toEqual(['depth']);
    expect(tooDeep(kept.value)).toBe(false);
    let shallow: unknown = 1;
    for (let i = 0; i < RECORD_DEPTH; i++) shallow = [shallow];
    expect(tooDeep(shallow)).toBe(false);
    expect(tooDeep([shallow])).toBe(true);
  });
});
