import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { methodNamesOf } from '../../src/rpc/discover.js';
import { editDistance, nearestNames } from '../../src/util/nearest-names.js';

const CRM = ['contacts.list', 'contacts.get', 'contacts.create', 'deals.list', 'rpc.discover'];

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and neighbour swaps', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('contacts.list', 'contact.list')).toBe(1);
    expect(editDistance('contcats.list', 'contacts.list')).toBe(1);
    expect(editDistance('contacts.get', 'contacts.list')).toBe(3);
  });

  it('is a distance: zero exactly for equal strings, symmetric, at most the longer length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const d = editDistance(a, b);
        expect(d === 0).toBe(a === b);
        expect(editDistance(b, a)).toBe(d);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
      { numRuns: 300 },
    );
  });
});

describe('nearestNames', () => {
  it('names close spellings first, then names that contain what was typed', () => {
    expect(nearestNames('contact.list', CRM)).toEqual(['contacts.list']);
    expect(nearestNames('Contacts.List', CRM)).toEqual(['contacts.list']);
    expect(nearestNames('contacts.gte', CRM)).toEqual(['contacts.get']);
    expect(nearestNames('deals.lst', CRM)).toEqual(['deals.list']);
    expect(nearestNames('contacts.lis', [...CRM, 'contacts.lisp'])).toEqual([
      'contacts.lisp',
      'contacts.list',
    ]);
    expect(nearestNames('list', CRM)).toEqual(['deals.list', 'contacts.list']);
    expect(nearestNames('contacts', CRM)).toEqual([
      'contacts.get',
      'contacts.list',
      'contacts.create',
    ]);
  });

  it('names nothing when nothing is near, and at most the limit', () => {
    expect(nearestNames('weather.today', CRM)).toEqual([]);
    expect(nearestNames('x', CRM)).toEqual([]);
    expect(nearestNames('ab', ['aa', 'ac', 'ad', 'ae'], 2)).toEqual(['aa', 'ac']);
    expect(nearestNames('a', [])).toEqual([]);
  });
});

describe('nearestNames anyway (nothing near)', () => {
  it('orders every other name by edits, then by name, up to the limit', () => {
    expect(nearestNames('deals.today', ['contacts.get', 'deals.list', 'x'], 2, true)).toEqual([
      'deals.list',
      'contacts.get',
    ]);
    expect(nearestNames('weather.today', ['zz', 'deals.list'], 3, true)).toEqual([
      'deals.list',
      'zz',
    ]);
    // Something near: only that, as without `anyway`.
    expect(nearestNames('contact.list', CRM, 3, true)).toEqual(['contacts.list']);
    expect(nearestNames('x', [], 3, true)).toEqual([]);
  });
});

describe('methodNamesOf (the rpc.discover result)', () => {
  it('reads the names of an OpenRPC document and nothing else', () => {
    expect(
      methodNamesOf({ openrpc: '1.2.6', methods: [{ name: 'a.b' }, { name: 'c' }, { x: 1 }] }),
    ).toEqual(['a.b', 'c']);
    expect(methodNamesOf(null)).toEqual([]);
    expect(methodNamesOf({ methods: 'no' })).toEqual([]);
    expect(methodNamesOf([{ name: 'a' }])).toEqual([]);
  });
});
