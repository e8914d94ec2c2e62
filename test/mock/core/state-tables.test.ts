import { describe, expect, it } from 'vitest';
import { GrantTable } from '../../../src/mock/core/grant-table.js';
import { TokenIndex } from '../../../src/mock/core/token-index.js';

// The purge deletes from these tables slice by slice; a single Map of a million entries would
// rehash what is left inside one delete. They must still read like the Maps they replace.
describe('GrantTable', () => {
  it('iterates the blocks in id order, each in insertion order (ids come increasing)', () => {
    const table = new GrantTable<string>();
    const ids = [1, 2, 16_383, 16_384, 16_385, 50_000, 100_000];
    // Blocks created out of order (as a state file might restore them) still come in order.
    for (const id of [100_000, 16_384, 16_385, 50_000, 1, 2, 16_383]) table.set(id, `g${id}`);
    expect([...table.keys()]).toEqual(ids);
    expect([...table].map(([, v]) => v)).toEqual(ids.map((id) => `g${id}`));
    expect(table.size).toBe(ids.length);
  });

  it('gets, replaces, deletes and forgets emptied blocks', () => {
    const table = new GrantTable<number>();
    table.set(7, 1).set(7, 2).set(40_000, 3);
    expect(table.size).toBe(2);
    expect(table.get(7)).toBe(2);
    expect(table.has(40_000)).toBe(true);
    expect(table.delete(40_000)).toBe(true);
    expect(table.delete(40_000)).toBe(false);
    expect(table.has(40_000)).toBe(false);
    expect(table.get(99)).toBeUndefined();
    table.set(40_001, 4); // a block emptied and dropped comes back on the next id in it
    expect([...table.keys()]).toEqual([7, 40_001]);
    table.clear();
    expect(table.size).toBe(0);
    expect([...table]).toEqual([]);
  });

  it('a live walk that deletes as it goes visits every entry once', () => {
    const table = new GrantTable<number>();
    for (let id = 1; id <= 40_000; id++) table.set(id, id);
    let seen = 0;
    for (const [id] of table.live()) {
      seen += 1;
      if (id % 2 === 0) table.delete(id);
    }
    expect(seen).toBe(40_000);
    expect(table.size).toBe(20_000);
    for (const [id] of table.live()) table.delete(id);
    expect(table.size).toBe(0);
  });
});

describe('TokenIndex', () => {
  it('maps any string, the empty one included, and counts across its shards', () => {
    const index = new TokenIndex();
    const tokens = ['', 'A', 'a', '0', '-', '_', 'é', 'p', 'Zlong-token_value'];
    tokens.forEach((token, i) => index.set(token, i));
    expect(index.size).toBe(tokens.length);
    tokens.forEach((token, i) => expect(index.get(token)).toBe(i));
    expect(index.get('nope')).toBeUndefined();
    expect(index.delete('p')).toBe(true);
    expect(index.delete('p')).toBe(false);
    expect(index.get('0')).toBe(3); // '0' and 'p' share a shard
    expect(index.size).toBe(tokens.length - 1);
    index.clear();
    expect(index.size).toBe(0);
  });
});
