import { describe, expect, it } from 'vitest';
import {
  firstRead,
  parseBasicAuth,
  parseOAuthParams,
} from '../../../src/mock/routes/oauth-params.js';
import fc from 'fast-check';

describe('parseOAuthParams', () => {
  it('names, in order, each parameter that is not valid UTF-8 percent-encoding', () => {
    expect(parseOAuthParams('a=1&state=%FF&b=%C3&state=%FE', '', '').malformed).toEqual([
      'state',
      'b',
      'state',
    ]);
    expect(parseOAuthParams('a=%C3%BC&b=100%&c=%zz', '', '').malformed).toEqual([]);
    expect(
      parseOAuthParams('', 'x=%ED%A0%80', 'application/x-www-form-urlencoded').malformed,
    ).toEqual(['x']);
  });
  it('tells whether a form body carried parameters', () => {
    const form = 'application/x-www-form-urlencoded';
    expect(parseOAuthParams('a=1', '', form).fromBody).toBe(false);
    expect(parseOAuthParams('', 'a=1', form).fromBody).toBe(true);
    expect(parseOAuthParams('', 'a=1', 'application/json').fromBody).toBe(false);
  });
  it('merges query and form body, names each repeat, drops empty values', () => {
    const p = parseOAuthParams(
      'a=1&b=&c=3',
      'd=4&a=5&d=6&a=7',
      'application/x-www-form-urlencoded; charset=utf-8',
    );
    expect([...p.values]).toEqual([
      ['a', '1'],
      ['c', '3'],
      ['d', '4'],
    ]);
    expect(p.repeated).toEqual(['a', 'd', 'a']);
  });
  it('firstRead keeps to what an endpoint reads', () => {
    const reads = new Set(['client_id', 'state']);
    expect(firstRead(['foo', 'state', 'client_id'], reads)).toBe('state');
    expect(firstRead(['foo', '%FFclient_id'], reads)).toBeUndefined();
  });
  it('ignores non-form bodies', () => {
    expect(parseOAuthParams('', 'a=1', 'application/json').values.size).toBe(0);
  });
});

describe('parseBasicAuth (RFC 6749 §2.3.1)', () => {
  it('decodes form-urlencoded id and secret', () => {
    const header = `Basic ${Buffer.from('my%20id:p%3Ass+w').toString('base64')}`;
    expect(parseBasicAuth(header)).toEqual({ id: 'my id', secret: 'p:ss w' });
  });
  it('flags malformed credentials, ignores other schemes', () => {
    expect(parseBasicAuth('Basic ###')).toBe('malformed');
    expect(parseBasicAuth(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBe('malformed');
    expect(parseBasicAuth('Bearer x')).toBeUndefined();
  });
});

/** OAuth params read in two plain passes: the reference parseOAuthParams's one pass must match. */
function reference(source: string) {
  const values = new Map<string, string>();
  const repeated: string[] = [];
  const malformed: string[] = [];
  const valid = (c: string) => {
    try {
      decodeURIComponent(c.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
      return true;
    } catch {
      return false;
    }
  };
  for (const pair of source.split('&')) {
    if (valid(pair)) continue;
    const name = pair.split('=', 1)[0]!;
    malformed.push(
      valid(name) ? (new URLSearchParams(`${name}=`).keys().next().value ?? name) : name,
    );
  }
  for (const [name, value] of new URLSearchParams(source)) {
    if (value === '') continue;
    if (values.has(name)) repeated.push(name);
    else values.set(name, value);
  }
  return { values: [...values], repeated, malformed };
}

describe('parseOAuthParams in one pass reads exactly what URLSearchParams reads', () => {
  const piece = fc.constantFrom(
    'a',
    'b',
    '=',
    '&',
    '+',
    '%',
    '%2',
    '%41',
    '%C3%A9',
    '%E9',
    '%ED%A0%80',
    '%F0%9F%98%80',
    ' ',
    'é',
    '',
  );
  it('for any query built of tricky pieces', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const query = pieces.join('');
        const got = parseOAuthParams(query, '', '');
        expect({
          values: [...got.values],
          repeated: got.repeated,
          malformed: got.malformed,
        }).toEqual(reference(query));
      }),
      { numRuns: 2000 },
    );
  });
  it('for a form body as well', () => {
    const got = parseOAuthParams(
      '',
      'grant_type=refresh_token&x=%E9&y=1+2',
      'application/x-www-form-urlencoded',
    );
    expect(got.fromBody).toBe(true);
    expect(got.malformed).toEqual(['x']);
    expect(got.values.get('y')).toBe('1 2');
    expect(got.values.get('x')).toBe('\uFFFD');
  });
});
