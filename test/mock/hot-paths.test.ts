import fc from 'fast-check';
import { binaryString } from '../helpers/binary-string.js';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { parseOAuthParams } from '../../src/mock/routes/oauth-params.js';
import { processJsonRpc, serialiseRpc } from '../../src/mock/routes/json-rpc.js';
import { pkceMatches } from '../../src/mock/core/secrets.js';
import { matchesStored } from '../../src/util/secrets.js';
import { MockState, ROTATED_PER_GRANT } from '../../src/mock/core/mock-state.js';

/** OAuth params read in two plain passes: the reference parseOAuthParams's one pass must match. */
function reference(source: string) {
  const values = new Map<string, string>();
  let repeated: string | undefined;
  let malformed: string | undefined;
  const valid = (c: string) => {
    try {
      decodeURIComponent(c.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
      return true;
    } catch {
      return false;
    }
  };
  for (const pair of source.split('&')) {
    if (malformed !== undefined || valid(pair)) continue;
    const name = pair.split('=', 1)[0]!;
    malformed = valid(name) ? (new URLSearchParams(`${name}=`).keys().next().value ?? name) : name;
  }
  for (const [name, value] of new URLSearchParams(source)) {
    if (value === '') continue;
    if (values.has(name)) repeated ??= name;
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
    expect(got.malformed).toBe('x');
    expect(got.values.get('y')).toBe('1 2');
    expect(got.values.get('x')).toBe('\uFFFD');
  });
});

describe('secrets and PKCE: one hash per check, still exact', () => {
  it('S256 matches its own challenge only', () => {
    const verifier = 'dBjftJeZ4CVP-mJ92K1oXlZq8wvIYAbUu_tR2ilzW8c';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(pkceMatches('S256', challenge, verifier)).toBe(true);
    expect(pkceMatches('S256', challenge, `${verifier}x`)).toBe(false);
    expect(pkceMatches('S256', challenge.slice(1), verifier)).toBe(false);
    expect(pkceMatches('S256', `${challenge.slice(0, -1)}é`, verifier)).toBe(false);
    expect(pkceMatches('plain', verifier, verifier)).toBe(true);
    expect(pkceMatches('plain', verifier, challenge)).toBe(false);
  });
  it('a stored secret is compared through its digest, per owner', () => {
    const a = { secret: 'alpha' };
    const b = { secret: 'beta' };
    expect(matchesStored(a, a.secret, 'alpha')).toBe(true);
    expect(matchesStored(a, a.secret, 'alph')).toBe(false);
    expect(matchesStored(b, b.secret, 'alpha')).toBe(false);
    expect(matchesStored(b, b.secret, 'beta')).toBe(true);
  });
  it('a stored secret matches exactly itself, whatever the lengths (128-byte buffers, else digests)', () => {
    const long = 'x'.repeat(128);
    const cases: [string, string, boolean][] = [
      [long, long, true],
      [long, long.slice(1), false],
      [`${long}y`, `${long}y`, true],
      [`${long}y`, long, false], // the stored secret's first 128 bytes, but not all of it
      [long, `${long}y`, false],
      ['é'.repeat(70), 'é'.repeat(70), true], // 140 bytes
      ['é'.repeat(70), 'é'.repeat(64), false], // its first 128 bytes
      ['abc', 'abc\0', false], // padding is no part of the secret
      ['abc\0', 'abc', false],
      ['', '', true],
    ];
    for (const [stored, candidate, expected] of cases) {
      expect(matchesStored({}, stored, candidate)).toBe(expected);
      const owner = {}; // the same owner again, after a long candidate computed its digest
      matchesStored(owner, stored, 'z'.repeat(200));
      expect(matchesStored(owner, stored, candidate)).toBe(expected);
    }
    fc.assert(
      fc.property(
        binaryString({ maxLength: 90 }),
        binaryString({ maxLength: 90 }),
        (stored, other) => {
          const owner = {};
          return (
            matchesStored(owner, stored, stored) &&
            matchesStored(owner, stored, other) === (stored === other)
          );
        },
      ),
    );
  });
});

describe('static JSON-RPC results serialised once give the same body', () => {
  it('single and batch', async () => {
    const result = { list: [1, 'two', { three: null }] };
    const invoke = () => ({ result, json: JSON.stringify(result) });
    const one = await processJsonRpc('{"jsonrpc":"2.0","method":"m","id":"x"}', invoke);
    expect(serialiseRpc(one)).toBe(JSON.stringify({ jsonrpc: '2.0', result, id: 'x' }));
    const batch = await processJsonRpc(
      '[{"jsonrpc":"2.0","method":"m","id":1},{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"1"}]',
      invoke,
    );
    expect(serialiseRpc(batch)).toBe(JSON.stringify(batch));
  });
});

describe('MockState memory', () => {
  const lifetimes = { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 86400 };
  const grant = { clientId: 'c', user: 'alice', scopes: ['crm'] };

  it('remembers a bounded number of rotated refresh tokens per grant, the newest', () => {
    const state = new MockState(lifetimes, () => 0);
    let pair = state.mint(grant);
    const old: string[] = [];
    for (let i = 0; i < ROTATED_PER_GRANT + 5; i++) {
      old.push(pair.refresh_token);
      pair = state.rotate(state.liveToken(pair.refresh_token)!);
    }
    expect(state.rotated.size).toBe(ROTATED_PER_GRANT);
    expect(state.liveToken(old[0]!)).toBeUndefined();
    expect(state.liveToken(old.at(-1)!)).toMatchObject({ kind: 'refresh', rotated: true });
    state.revokeGrant(state.liveToken(pair.access_token)!.grantId);
    expect(state.rotated.size).toBe(0);
  });

  it('purges in slices: lookups stay right meanwhile, and everything expired goes', async () => {
    // A slice ends once 5 ms have passed; here each reading of the clock is 1 ms later, so a slice
    // looks at a few steps of entries whatever the machine's speed or load.
    let ms = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => ++ms);
    try {
      let now = 0;
      const state = new MockState(lifetimes, () => now);
      const pairs = Array.from({ length: 20_000 }, () => state.mint(grant));
      now = 2 * 86400 * 1000;
      const fresh = state.mint(grant); // starts the sweep; its first slice runs at once
      // The first slice gave the event loop back with most of the purge still to do.
      expect(state.sweeping).toBe(true);
      expect(state.tokens.size).toBeGreaterThan(20_000);
      expect(state.authenticate(pairs[19_999]!.access_token)).toBeUndefined();
      expect(state.authenticate(fresh.access_token)).toMatchObject({ user: 'alice' });
      let turns = 0;
      for (; state.sweeping; turns++) await new Promise((r) => setImmediate(r));
      expect(turns).toBeGreaterThan(1);
      expect(state.grants.size).toBe(1);
      expect(state.tokens.size).toBe(2);
      expect(state.authenticate(fresh.access_token)).toMatchObject({ user: 'alice' });
    } finally {
      clock.mockRestore();
    }
  });

  it('a revoked access token leaves its grant and refresh token working', () => {
    const state = new MockState(lifetimes, () => 0);
    const pair = state.mint(grant);
    state.revokeToken(pair.access_token, state.liveToken(pair.access_token)!);
    expect(state.authenticate(pair.access_token)).toBeUndefined();
    expect(state.liveToken(pair.refresh_token)).toMatchObject({ kind: 'refresh' });
    expect(JSON.stringify(state.snapshot().grants[0]![1])).not.toContain('"access"');
  });
});
